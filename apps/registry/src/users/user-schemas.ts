import { z } from 'zod';
import { PASSWORD_MAX, PASSWORD_MIN } from '../crypto/password-hash';
import { namedSchemas } from '../docs/response-schemas';
import { ADMIN_USERNAME } from '../http/schemas';

function named<S extends z.ZodType>(id: string, description: string, schema: S): S {
  const described = schema.describe(description) as S;
  namedSchemas.set(id, described);
  return described;
}

const dateTime = z.string().meta({ format: 'date-time' });
const username = z.string().regex(ADMIN_USERNAME, 'must be 1-64 chars of A-Z a-z 0-9 . _ @ -');
/** A WebAuthn credential id as base64url (WebAuthn caps ids at 1023 bytes). */
const credentialId = z.string().regex(/^[A-Za-z0-9_-]{1,1400}$/, 'must be a base64url credential id');
const password = z
  .string()
  .min(PASSWORD_MIN, `must be at least ${PASSWORD_MIN} characters`)
  .max(PASSWORD_MAX, `must be at most ${PASSWORD_MAX} characters`);
const tenant = z.string().min(1).max(63);

/** `POST /v1/users`: invite a person to the tenant's user directory. */
export const inviteUserBody = z.object({ username, name: z.string().min(1).max(120).optional() }).strict();
export const userParams = z.object({ username: z.string().regex(ADMIN_USERNAME, 'must be a directory user name') });
export const passkeyParams = z.object({ username: z.string().regex(ADMIN_USERNAME, 'must be a directory user name'), id: credentialId });

export const directoryUserSchema = named(
  'DirectoryUser',
  'A person in the tenant user directory (signs in at the tenant authorization server); never a hash or key',
  z.object({
    username: z.string(),
    name: z.string().nullable(),
    status: z.enum(['invited', 'active', 'disabled']),
    hasPassword: z.boolean(),
    createdAt: dateTime,
    createdBy: z.string(),
    lastLoginAt: dateTime.nullable(),
    passkeys: z.array(z.object({ id: z.string(), name: z.string(), createdAt: dateTime, lastUsedAt: dateTime.nullable() })),
  }),
);
export const usersResponse = z.object({
  users: z.array(directoryUserSchema),
  next: z.string().nullable().describe('Pass as `after` for the next page; null on the last'),
});
/** `GET /v1/users`: pages by user name (a directory holds up to 10,000 users). */
export const usersQuery = z
  .object({
    after: z.string().regex(ADMIN_USERNAME, 'must be a user name (the `next` of the previous page)').optional(),
    limit: z.coerce.number().int().min(1).max(1000).default(200),
  })
  .strict();
export const userLinkSchema = named(
  'UserLink',
  'A one-time link (invite or password reset) to hand to the user yourself: Switchboard sends no e-mail. Valid once, until expiresAt',
  z.object({ purpose: z.enum(['invite', 'reset']), url: z.string(), expiresAt: dateTime }),
);
export const invitedUserResponse = named(
  'InvitedUser',
  'The invited user and their one-time invite link',
  z.object({ user: directoryUserSchema, link: userLinkSchema }),
);

// Internal (auth service → registry) bodies.
export const verifyUserBody = z
  .object({ tenant, username: z.string().min(1).max(64), password: z.string().min(1).max(PASSWORD_MAX) })
  .strict();
export const linkInfoBody = z.object({ tenant, token: z.string().min(1).max(200) }).strict();
export const redeemLinkBody = z.object({ tenant, token: z.string().min(1).max(200), password }).strict();
export const userRefBody = z.object({ tenant, username }).strict();
export const passkeyLookupBody = z.object({ tenant, credentialId }).strict();
export const addPasskeyBody = z
  .object({
    tenant,
    username,
    credentialId,
    publicKey: z.string().regex(/^[A-Za-z0-9_-]{1,2048}$/, 'must be a base64url COSE public key'),
    counter: z
      .number()
      .int()
      .min(0)
      .max(2 ** 32 - 1),
    transports: z
      .array(z.string().regex(/^[a-z-]{1,32}$/))
      .max(8)
      .default([]),
    name: z.string().min(1).max(64),
  })
  .strict();
export const passkeyUsedBody = z
  .object({
    tenant,
    credentialId,
    counter: z
      .number()
      .int()
      .min(0)
      .max(2 ** 32 - 1),
  })
  .strict();
/** An identity-source id of the auth service (`dir`, `local`, `oidc-<16 hex>`). */
const identitySource = z.string().regex(/^[A-Za-z0-9._@-]{1,64}$/, 'must be an identity-source id');
const count = z
  .number()
  .int()
  .min(0)
  .max(2 ** 31 - 1);
/**
 * The auth service's report of vault rows it purged: `legacy-subjects` (the migration to
 * namespaced subjects) or `idp-change` (a tenant's IdP changed: what the former identity sources
 * left stored went, with `sources` purged, `kept` the tenant's current ones).
 */
export const vaultPurgeBody = z
  .object({
    tenant,
    reason: z.enum(['legacy-subjects', 'idp-change']).default('legacy-subjects'),
    rows: count,
    connectors: z.array(z.string().max(64)).max(64),
    sources: z.array(identitySource).max(64).optional(),
    kept: z.array(identitySource).max(8).optional(),
    artefacts: count.optional(),
    linkStates: count.optional(),
    purgedAt: z.iso.datetime(),
  })
  .strict();
