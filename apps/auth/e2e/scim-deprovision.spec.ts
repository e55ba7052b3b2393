import { api, pollUntil, token } from '@switchboard/testing';
import { invite, redeem, setPassword, startDirectoryStack, startSignIn, submitSignIn, type DirectoryStack } from './support/directory';

/** A SCIM answer as the tests read it (resources, list responses and errors share one loose shape). */
type ScimResource = Record<string, unknown> & { id: string; userName: string; members?: unknown[] };
type ScimBody = Record<string, unknown> & {
  id: string;
  active: boolean;
  totalResults: number;
  itemsPerPage: number;
  schemas: string[];
  Resources: ScimResource[];
};

const PASSWORD = 'correct horse battery staple';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

/**
 * Issue 44 item 4: an IdP deprovisions a directory user over SCIM (Entra ID's `active: "False"`,
 * or DELETE) and what the user holds at the authorization server goes at once — the oidc-provider
 * session, grant and refresh token, and the vault entries of their linked upstream accounts — on
 * the real registry and auth service; other users keep theirs.
 */
describe('SCIM deprovisioning revokes grants, tokens and vault entries', () => {
  let stack: DirectoryStack;
  let scimToken: string;

  const scim = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${stack.registryUrl}/scim/v2/acme${path}`, {
      method,
      headers: { authorization: `Bearer ${scimToken}`, ...(body ? { 'content-type': 'application/scim+json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : {}) as ScimBody };
  };

  /** Rows oidc-provider keeps for the subject (sessions, grants, refresh tokens …) and its vault rows. */
  const held = async (subject: string) => {
    const schema = stack.auth.services.config.AUTH_DB_SCHEMA;
    const pool = stack.auth.services.pool;
    const artefacts = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "${schema}".oidc_model WHERE tenant_id = 'acme' AND payload->>'accountId' = $1`,
      [subject],
    );
    const vault = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "${schema}".vault_token WHERE tenant_id = 'acme' AND subject = $1`,
      [subject],
    );
    return { artefacts: artefacts.rows[0].n, vault: vault.rows[0].n };
  };

  /** A SCIM-provisioned user who set a password, signed in (refresh token) and linked an upstream account. */
  const provisionAndSignIn = async (username: string) => {
    const made = await scim('POST', '/Users', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      userName: username,
      externalId: `ext-${username}`,
    });
    expect(made.status).toBe(201);
    const link = await api(stack.registryUrl, stack.key, 'POST', `/v1/users/${username}/reset-link`);
    expect((await setPassword(String(link.body.url), PASSWORD)).status).toBe(200);
    const a = await startSignIn(stack.issuer);
    const signedIn = await submitSignIn(a, /\/password$/, { user: username, password: PASSWORD });
    const t = await redeem(stack.issuer, a, signedIn.code ?? '');
    expect(t.status).toBe(200);
    await stack.auth.services.vault.put('acme', `acme|dir|${username}`, 'crm', { accessToken: `upstream-token-of-${username}` });
    return { id: String(made.body.id), refresh: String(t.body.refresh_token), clientId: a.clientId };
  };

  beforeAll(async () => {
    stack = await startDirectoryStack({ SWITCHBOARD_ENV: 'production', CONSOLE_LOGIN_RATE_LIMIT_PER_MIN: '1000' });
    const created = await api(stack.registryUrl, stack.key, 'POST', '/v1/scim/tokens', { name: 'entra' });
    scimToken = String(created.body.token);
    // A directory user the IdP does not touch: theirs must survive.
    await setPassword(await invite(stack, 'olga'), PASSWORD);
    await stack.auth.services.vault.put('acme', 'acme|dir|olga', 'crm', { accessToken: 'upstream-token-of-olga' });
  }, 60_000);
  afterAll(async () => stack?.close());

  it('active=false (as Entra ID sends it) deletes the session, grant, refresh token and vault rows at once', async () => {
    const dana = await provisionAndSignIn('dana');
    expect(await held('acme|dir|dana')).toMatchObject({ vault: 1, artefacts: expect.any(Number) });
    expect((await held('acme|dir|dana')).artefacts).toBeGreaterThan(0);
    const off = await scim('PATCH', `/Users/${dana.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
    });
    expect([off.status, off.body.active]).toEqual([200, false]);
    await pollUntil('dana purged at the auth service', async () => {
      const h = await held('acme|dir|dana');
      return h.artefacts === 0 && h.vault === 0;
    });
    const refused = await token(stack.issuer, { grant_type: 'refresh_token', refresh_token: dana.refresh, client_id: dana.clientId });
    expect([refused.status, refused.body.error]).toEqual([400, 'invalid_grant']);
    expect(await stack.auth.services.vault.get('acme', 'acme|dir|olga', 'crm')).toMatchObject({ accessToken: 'upstream-token-of-olga' });
    // The registry audits the purge with what went (counts only).
    const audit = await pollUntil('revocation audited', async () => {
      const entries = (await api(stack.registryUrl, stack.key, 'GET', '/v1/audit')).body.entries as Array<{
        action: string;
        target: string;
        details: Record<string, unknown>;
      }>;
      return entries.find((e) => e.action === 'user.revoke-tokens' && e.target === 'dana');
    });
    expect(audit.details).toMatchObject({ vaultRows: 1, tenantServed: true });
    expect(Number(audit.details.artefacts)).toBeGreaterThan(0);
  }, 60_000);

  it('DELETE does the same, and the user can no longer sign in', async () => {
    const erik = await provisionAndSignIn('erik');
    expect((await scim('DELETE', `/Users/${erik.id}`)).status).toBe(204);
    await pollUntil('erik purged at the auth service', async () => {
      const h = await held('acme|dir|erik');
      return h.artefacts === 0 && h.vault === 0;
    });
    const a = await startSignIn(stack.issuer);
    expect((await submitSignIn(a, /\/password$/, { user: 'erik', password: PASSWORD })).status).toBe(401);
  }, 60_000);
});
