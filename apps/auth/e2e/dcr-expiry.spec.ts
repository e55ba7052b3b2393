// Dynamically registered clients expire when unused (DCR_CLIENT_IDLE_DAYS) and each tenant has a
// cap on live registered clients (DCR_MAX_CLIENTS_PER_TENANT), against real Postgres. Time is
// moved by ageing `last_used_at` in the table, not by waiting.
import { hashId } from '@switchboard/secret-box';
import { deleteExpiredArtefacts } from '../src/db/pg-adapter';
import { startAuth, type TestAuth } from './support/auth-harness';
import { authorizeUrl, pkcePair, register, registerPublicClient, TestBrowser } from '@switchboard/testing';

jest.setTimeout(60_000);

const CLAUDE = 'https://claude.ai/api/mcp/auth_callback';
const DAY = 86_400;

describe('DCR client expiry and per-tenant cap', () => {
  let auth: TestAuth;

  beforeAll(async () => {
    auth = await startAuth({
      env: { DCR_MAX_CLIENTS_PER_TENANT: '3', DCR_CLIENT_IDLE_DAYS: '30', DCR_RATE_LIMIT_PER_MIN: '1000' },
      tenants: [
        { id: 'acme', auth: { scopes: ['mcp:tools'] } },
        { id: 'beta', auth: { scopes: ['mcp:tools'] } },
      ],
    });
  });
  afterAll(async () => auth?.close());

  const table = () => `"${auth.schema}".oidc_model`;
  const lastUsed = async (tenant: string, clientId: string): Promise<Date | undefined> => {
    const { rows } = await auth.services.pool.query<{ last_used_at: Date }>(
      `SELECT last_used_at FROM ${table()} WHERE tenant_id = $1 AND model = 'Client' AND id_hash = $2`,
      [tenant, hashId(clientId)],
    );
    return rows[0]?.last_used_at;
  };
  const age = async (tenant: string, clientId: string, days: number) => {
    await auth.services.pool.query(
      `UPDATE ${table()} SET last_used_at = now() - make_interval(days => $3::int) WHERE tenant_id = $1 AND model = 'Client' AND id_hash = $2`,
      [tenant, hashId(clientId), days],
    );
  };
  /** An authorization request of the client: anything but a 400 means the provider knows it. */
  const authorize = async (tenant: string, clientId: string) =>
    (await new TestBrowser().get(authorizeUrl(auth.issuer(tenant), { clientId, redirectUri: CLAUDE, challenge: pkcePair().challenge })))
      .status;

  const acme: string[] = [];

  it('refuses a registration past the cap with invalid_client_metadata naming the limit; another tenant is unaffected', async () => {
    for (let i = 0; i < 3; i++) acme.push(await registerPublicClient(auth.issuer('acme'), CLAUDE));
    const over = await register(auth.issuer('acme'), { redirect_uris: [CLAUDE], token_endpoint_auth_method: 'none' });
    expect(over.status).toBe(400);
    expect(over.body.error).toBe('invalid_client_metadata');
    expect(String(over.body.error_description)).toContain('limit of 3 registered clients');
    // Parallel registrations cannot overshoot the cap (count + insert under one per-tenant lock).
    const parallel = await Promise.all(
      Array.from({ length: 5 }, () => register(auth.issuer('acme'), { redirect_uris: [CLAUDE], token_endpoint_auth_method: 'none' })),
    );
    expect(parallel.every((r) => r.status === 400)).toBe(true);
    const { rows } = await auth.services.pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM ${table()} WHERE tenant_id = 'acme' AND model = 'Client'`,
    );
    expect(Number(rows[0].n)).toBe(3);
    expect((await register(auth.issuer('beta'), { redirect_uris: [CLAUDE], token_endpoint_auth_method: 'none' })).status).toBe(201);
  });

  it('a client unused past the idle period is refused at once, frees its place, and the sweep deletes it', async () => {
    expect(await authorize('acme', acme[0])).not.toBe(400);
    await age('acme', acme[0], 31);
    expect(await authorize('acme', acme[0])).toBe(400);
    // The expired client no longer counts: one more registration fits.
    const fresh = await register(auth.issuer('acme'), { redirect_uris: [CLAUDE], token_endpoint_auth_method: 'none' });
    expect(fresh.status).toBe(201);
    acme.push(String(fresh.body.client_id));
    expect(await lastUsed('acme', acme[0])).toBeDefined();
    await deleteExpiredArtefacts(auth.services.pool, auth.schema, 30 * DAY);
    expect(await lastUsed('acme', acme[0])).toBeUndefined();
    // Live clients survive the sweep.
    expect(await lastUsed('acme', acme[1])).toBeDefined();
    expect(await authorize('acme', acme[1])).not.toBe(400);
  });

  it('a use refreshes a stale last_used_at (once per touch interval, not per request)', async () => {
    const id = acme[2];
    await age('acme', id, 5);
    const before = (await lastUsed('acme', id))!;
    expect(await authorize('acme', id)).not.toBe(400);
    const deadline = Date.now() + 10_000;
    let touched = before;
    while (Date.now() < deadline && touched.getTime() === before.getTime()) {
      await new Promise((r) => setImmediate(r));
      touched = (await lastUsed('acme', id))!;
    }
    expect(touched.getTime() - before.getTime()).toBeGreaterThan(4 * DAY * 1000);
    // Fresh now: further uses read it but do not write it.
    for (let i = 0; i < 5; i++) expect(await authorize('acme', id)).not.toBe(400);
    // A pending touch would land right after its request; the next read sees the same value.
    expect(await authorize('acme', id)).not.toBe(400);
    expect((await lastUsed('acme', id))!.getTime()).toBe(touched.getTime());
  });

  it('a client aged but still within the period keeps working', async () => {
    await age('acme', acme[1], 29);
    expect(await authorize('acme', acme[1])).not.toBe(400);
  });
});
