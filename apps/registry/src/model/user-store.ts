import { createHash, randomBytes } from 'node:crypto';
import { isUniqueViolation, type Queryable } from '../db/database';
import { ApiError } from '../http/api-error';
import { ADMIN_USERNAME, TENANT_ID } from '../http/schemas';
import { hashPassword, verifyAgainstDummy, verifyPassword } from '../crypto/password-hash';

/** How long an invite link stays valid (the invited person may read it a day later). */
export const INVITE_TTL_S = 72 * 3600;
/** How long a password-reset link stays valid (short: it replaces the password). */
export const RESET_TTL_S = 30 * 60;
/** Directory users per tenant and passkeys per user (a hostile tenant cannot grow the tables without bound). */
export const MAX_USERS_PER_TENANT = 10_000;
export const MAX_PASSKEYS_PER_USER = 10;

/** A `registry.tenant_users` row. */
export interface UserRow {
  tenant_id: string;
  username: string;
  name: string | null;
  password_hash: string | null;
  created_at: Date;
  created_by: string;
  last_login_at: Date | null;
  disabled_at: Date | null;
  sessions_valid_after: Date;
}

/** A `registry.tenant_user_passkeys` row. */
export interface PasskeyRow {
  tenant_id: string;
  credential_id: string;
  username: string;
  public_key: string;
  counter: string;
  transports: string[];
  name: string;
  created_at: Date;
  last_used_at: Date | null;
}

export type UserStatus = 'invited' | 'active' | 'disabled';

export function userStatus(row: UserRow, passkeys = 0): UserStatus {
  if (row.disabled_at) return 'disabled';
  return row.password_hash || passkeys > 0 ? 'active' : 'invited';
}

/** The API view of a directory user: never the hash, never a public key. */
export function userView(row: UserRow, passkeys: PasskeyRow[]) {
  return {
    username: row.username,
    name: row.name,
    status: userStatus(row, passkeys.length),
    hasPassword: row.password_hash !== null,
    createdAt: row.created_at,
    createdBy: row.created_by,
    lastLoginAt: row.last_login_at,
    passkeys: passkeys.map((p) => ({ id: p.credential_id, name: p.name, createdAt: p.created_at, lastUsedAt: p.last_used_at })),
  };
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Creates an invited user (no password yet) inside the caller's transaction; 409 naming body.username when taken, 409 over the per-tenant cap. */
export async function createUser(
  q: Queryable,
  tenantId: string,
  input: { username: string; name?: string },
  actor: string,
): Promise<UserRow> {
  // Serialises inserts of one tenant so the cap cannot be overrun by parallel invites.
  await q.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`registry-users:${tenantId}`]);
  const [{ n }] = await q.query<{ n: string }>('SELECT count(*) AS n FROM registry.tenant_users WHERE tenant_id = $1', [tenantId]);
  if (Number(n) >= MAX_USERS_PER_TENANT)
    throw new ApiError(
      409,
      'CONFLICT',
      `body.username: the directory is full (at most ${MAX_USERS_PER_TENANT} users per workspace)`,
      'body.username',
    );
  try {
    const rows = await q.query<UserRow>(
      'INSERT INTO registry.tenant_users (tenant_id, username, name, created_by) VALUES ($1, $2, $3, $4) RETURNING *',
      [tenantId, input.username, input.name ?? null, actor],
    );
    return rows[0];
  } catch (err) {
    if (isUniqueViolation(err))
      throw new ApiError(409, 'CONFLICT', `body.username: user "${input.username}" already exists`, 'body.username');
    throw err;
  }
}

/**
 * Issues a one-time link token (invite or reset) for a user, replacing every unused earlier link
 * of that user. Only the token's hash is stored; the token itself is returned once.
 */
export async function issueLink(
  q: Queryable,
  tenantId: string,
  username: string,
  purpose: 'invite' | 'reset',
): Promise<{ token: string; expiresAt: Date }> {
  await q.query('DELETE FROM registry.tenant_user_links WHERE tenant_id = $1 AND username = $2', [tenantId, username]);
  const token = randomBytes(32).toString('base64url');
  const ttl = purpose === 'invite' ? INVITE_TTL_S : RESET_TTL_S;
  const rows = await q.query<{ expires_at: Date }>(
    'INSERT INTO registry.tenant_user_links (token_hash, tenant_id, username, purpose, expires_at) VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5)) RETURNING expires_at',
    [hashToken(token), tenantId, username, purpose, ttl],
  );
  return { token, expiresAt: rows[0].expires_at };
}

/** The live (unused, unexpired) link of a token, for an enabled user; undefined otherwise. */
export async function liveLink(
  q: Queryable,
  tenantId: string,
  token: string,
): Promise<{ username: string; purpose: 'invite' | 'reset'; name: string | null } | undefined> {
  if (!TENANT_ID.test(tenantId) || !/^[A-Za-z0-9_-]{20,100}$/.test(token)) return undefined;
  const rows = await q.query<{ username: string; purpose: 'invite' | 'reset'; name: string | null }>(
    `SELECT l.username, l.purpose, u.name FROM registry.tenant_user_links l JOIN registry.tenant_users u USING (tenant_id, username)
      WHERE l.token_hash = $1 AND l.tenant_id = $2 AND l.used_at IS NULL AND l.expires_at > now() AND u.disabled_at IS NULL`,
    [hashToken(token), tenantId],
  );
  return rows[0];
}

/**
 * Consumes a link and sets the password in one transaction: the link is marked used only while
 * still unused and unexpired, so two redemptions of one link cannot both succeed. The password is
 * hashed before the transaction (scrypt holds no connection).
 */
export async function redeemLink(
  db: { tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T> },
  tenantId: string,
  token: string,
  password: string,
  onRedeemed: (q: Queryable, link: { username: string; purpose: string }) => Promise<void>,
): Promise<{ username: string; purpose: 'invite' | 'reset' } | undefined> {
  if (!TENANT_ID.test(tenantId) || !/^[A-Za-z0-9_-]{20,100}$/.test(token)) return undefined;
  const hash = await hashPassword(password);
  return db.tx(async (q) => {
    const used = await q.query<{ username: string; purpose: 'invite' | 'reset' }>(
      `UPDATE registry.tenant_user_links l SET used_at = now() FROM registry.tenant_users u
        WHERE l.token_hash = $1 AND l.tenant_id = $2 AND l.used_at IS NULL AND l.expires_at > now()
          AND u.tenant_id = l.tenant_id AND u.username = l.username AND u.disabled_at IS NULL
        RETURNING l.username, l.purpose`,
      [hashToken(token), tenantId],
    );
    const link = used[0];
    if (!link) return undefined;
    // A new password ends the sessions and refresh tokens issued before it (a reset is often a response to a leak).
    await q.query(
      'UPDATE registry.tenant_users SET password_hash = $3, sessions_valid_after = now() WHERE tenant_id = $1 AND username = $2',
      [tenantId, link.username, hash],
    );
    await onRedeemed(q, link);
    return link;
  });
}

/**
 * The password check behind a directory sign-in. Unknown user, invited user without a password,
 * disabled user and wrong password all answer undefined after the same scrypt work.
 */
export async function verifyUserPassword(q: Queryable, tenantId: string, username: string, password: string): Promise<UserRow | undefined> {
  const rows =
    TENANT_ID.test(tenantId) && ADMIN_USERNAME.test(username)
      ? await q.query<UserRow>('SELECT * FROM registry.tenant_users WHERE tenant_id = $1 AND username = $2', [tenantId, username])
      : [];
  const row = rows[0];
  if (!row?.password_hash) return verifyAgainstDummy(password).then(() => undefined);
  const ok = await verifyPassword(password, row.password_hash);
  if (!ok || row.disabled_at !== null) return undefined;
  const updated = await q.query<UserRow>(
    'UPDATE registry.tenant_users SET last_login_at = now() WHERE tenant_id = $1 AND username = $2 AND disabled_at IS NULL RETURNING *',
    [tenantId, username],
  );
  return updated[0];
}

export async function activeUser(q: Queryable, tenantId: string, username: string): Promise<UserRow | undefined> {
  if (!TENANT_ID.test(tenantId) || !ADMIN_USERNAME.test(username)) return undefined;
  const rows = await q.query<UserRow>(
    'SELECT * FROM registry.tenant_users WHERE tenant_id = $1 AND username = $2 AND disabled_at IS NULL',
    [tenantId, username],
  );
  return rows[0];
}

export async function passkeysOf(q: Queryable, tenantId: string, usernames: string[]): Promise<Map<string, PasskeyRow[]>> {
  const out = new Map<string, PasskeyRow[]>();
  if (usernames.length === 0) return out;
  const rows = await q.query<PasskeyRow>(
    'SELECT * FROM registry.tenant_user_passkeys WHERE tenant_id = $1 AND username = ANY($2) ORDER BY created_at',
    [tenantId, usernames],
  );
  for (const r of rows) out.set(r.username, [...(out.get(r.username) ?? []), r]);
  return out;
}
