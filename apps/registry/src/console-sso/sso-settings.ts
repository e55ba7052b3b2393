import { z } from 'zod';
import type { SecretBox } from '@switchboard/secret-box';
import type { Queryable } from '../db/database';
import { ROLES, type Role } from '../model/roles';

/** Groups a role map may name (an IdP admin maps a handful; the map is read on every SSO sign-in). */
export const MAX_ROLE_MAP_ENTRIES = 50;

const claimName = z.string().regex(/^[A-Za-z0-9_:./-]{1,100}$/, 'must be a claim name (1-100 chars of A-Z a-z 0-9 _ : . / -)');

/** `PUT /v1/console-sso`: the tenant's own OIDC IdP for console sign-in. */
export const ssoSettingsBody = z
  .object({
    issuer: z.url({ protocol: /^https?$/, error: 'must be the IdP issuer URL' }).max(2048),
    clientId: z.string().min(1).max(255),
    /** Omitted: keep the stored secret; null: a public client (PKCE only). */
    clientSecret: z.string().min(1).max(1024).nullable().optional(),
    groupClaim: claimName.default('groups'),
    usernameClaim: claimName.default('email'),
    roleMap: z
      .record(z.string().min(1).max(255), z.enum(ROLES))
      .refine((m) => Object.keys(m).length <= MAX_ROLE_MAP_ENTRIES, `must map at most ${MAX_ROLE_MAP_ENTRIES} groups`)
      .default({}),
    jit: z.boolean().default(false),
    enabled: z.boolean().default(true),
  })
  .strict();
export type SsoSettingsInput = z.infer<typeof ssoSettingsBody>;

export interface SsoSettings {
  issuer: string;
  clientId: string;
  clientSecret: string | undefined;
  groupClaim: string;
  usernameClaim: string;
  roleMap: Record<string, Role>;
  jit: boolean;
  enabled: boolean;
  updatedAt: Date;
}

interface SsoRow {
  issuer: string;
  client_id: string;
  client_secret_sealed: string | null;
  group_claim: string;
  username_claim: string;
  role_map: Record<string, Role>;
  jit: boolean;
  enabled: boolean;
  updated_at: Date;
}

// The AAD names the tenant: a sealed secret copied to another tenant's row does not open.
const aad = (tenantId: string) => `console-sso:${tenantId}`;

export async function readSso(q: Queryable, box: SecretBox, tenantId: string): Promise<SsoSettings | undefined> {
  const rows = await q.query<SsoRow>('SELECT * FROM registry.console_sso WHERE tenant_id = $1', [tenantId]);
  const r = rows[0];
  if (!r) return undefined;
  return {
    issuer: r.issuer,
    clientId: r.client_id,
    clientSecret: r.client_secret_sealed ? box.open(r.client_secret_sealed, aad(tenantId)) : undefined,
    groupClaim: r.group_claim,
    usernameClaim: r.username_claim,
    roleMap: r.role_map,
    jit: r.jit,
    enabled: r.enabled,
    updatedAt: r.updated_at,
  };
}

/** The API view: never the secret, only whether one is set. */
export function ssoView(s: SsoSettings, redirectUri: string) {
  return {
    issuer: s.issuer,
    clientId: s.clientId,
    hasClientSecret: s.clientSecret !== undefined,
    groupClaim: s.groupClaim,
    usernameClaim: s.usernameClaim,
    roleMap: s.roleMap,
    jit: s.jit,
    enabled: s.enabled,
    redirectUri,
    updatedAt: s.updatedAt,
  };
}

export async function writeSso(q: Queryable, box: SecretBox, tenantId: string, input: SsoSettingsInput): Promise<void> {
  const sealed = typeof input.clientSecret === 'string' ? box.seal(input.clientSecret, aad(tenantId)) : null;
  await q.query(
    `INSERT INTO registry.console_sso (tenant_id, issuer, client_id, client_secret_sealed, group_claim, username_claim, role_map, jit, enabled)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT (tenant_id) DO UPDATE SET issuer = EXCLUDED.issuer, client_id = EXCLUDED.client_id,
       client_secret_sealed = CASE WHEN $10 THEN registry.console_sso.client_secret_sealed ELSE EXCLUDED.client_secret_sealed END,
       group_claim = EXCLUDED.group_claim, username_claim = EXCLUDED.username_claim, role_map = EXCLUDED.role_map, jit = EXCLUDED.jit, enabled = EXCLUDED.enabled, updated_at = now()`,
    [
      tenantId,
      input.issuer.replace(/\/+$/, ''),
      input.clientId,
      sealed,
      input.groupClaim,
      input.usernameClaim,
      JSON.stringify(input.roleMap),
      input.jit,
      input.enabled,
      input.clientSecret === undefined,
    ],
  );
}
