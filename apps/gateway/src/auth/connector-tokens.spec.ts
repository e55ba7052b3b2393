import { createServer, type Server } from 'node:http';
import { CONNECTOR_ERRORS, ConnectorTokens } from './connector-tokens';

/** A loopback stand-in for the auth service's token-exchange endpoint, answering what the test sets. */
interface FakeVault {
  url: string;
  hits: number;
  answer: { status: number; body: string };
  close(): Promise<void>;
}

async function fakeVault(): Promise<FakeVault> {
  const state: FakeVault = { url: '', hits: 0, answer: { status: 200, body: '{}' }, close: async () => undefined };
  const server: Server = createServer((req, res) => {
    state.hits++;
    req.resume();
    req.on('end', () => res.writeHead(state.answer.status, { 'content-type': 'application/json' }).end(state.answer.body));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const addr = server.address();
  state.url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  state.close = () => new Promise<void>((r) => server.close(() => r()));
  return state;
}

describe('ConnectorTokens', () => {
  let vault: FakeVault;
  const user = { ok: true as const, subject: 'acme|carol', scopes: [], token: 'client-token' };

  beforeEach(async () => {
    vault = await fakeVault();
  });
  afterEach(async () => {
    await vault.close();
  });

  it('asks the vault on every call with cacheMs 0 (an unlink is seen by the next call)', async () => {
    const tokens = new ConnectorTokens({ authUrl: vault.url, internalToken: 'x'.repeat(16), cacheMs: 0 });
    vault.answer = { status: 200, body: JSON.stringify({ access_token: 'up-1', expires_in: 3600 }) };
    expect(await tokens.credential('acme', 'crm', user)).toEqual({ kind: 'token', token: 'up-1' });
    vault.answer = {
      status: 400,
      body: JSON.stringify({
        error: 'invalid_grant',
        reason: 'not_linked',
        link_url: 'http://auth.test/t/acme/connectors/crm/link?ticket=t',
      }),
    };
    expect(await tokens.credential('acme', 'crm', user)).toEqual({
      kind: 'link',
      linkUrl: 'http://auth.test/t/acme/connectors/crm/link?ticket=t',
      reason: 'not_linked',
    });
    expect(vault.hits).toBe(2);
  });

  it('reuses a token for at most cacheMs (and never past its expiry)', async () => {
    const tokens = new ConnectorTokens({ authUrl: vault.url, internalToken: 'x'.repeat(16), cacheMs: 60_000 });
    vault.answer = { status: 200, body: JSON.stringify({ access_token: 'up-1', expires_in: 3600 }) };
    await tokens.credential('acme', 'crm', user);
    await tokens.credential('acme', 'crm', user);
    expect(vault.hits).toBe(1);
    // Expires within the early-expiry margin: not cached at all.
    vault.answer = { status: 200, body: JSON.stringify({ access_token: 'up-2', expires_in: 10 }) };
    await tokens.credential('acme', 'wiki', user);
    await tokens.credential('acme', 'wiki', user);
    expect(vault.hits).toBe(3);
  });

  it('answers coded errors: no signed-in user, vault down or refusing, oversized or non-http link answers', async () => {
    const tokens = new ConnectorTokens({ authUrl: vault.url, internalToken: 'x'.repeat(16), cacheMs: 0 });
    expect(await tokens.credential('acme', 'crm', undefined)).toMatchObject({ kind: 'error', code: CONNECTOR_ERRORS.signInRequired });
    vault.answer = { status: 503, body: JSON.stringify({ error: 'temporarily_unavailable' }) };
    expect(await tokens.credential('acme', 'crm', user)).toMatchObject({
      kind: 'error',
      code: CONNECTOR_ERRORS.unavailable,
      message: expect.stringContaining('temporarily_unavailable'),
    });
    vault.answer = { status: 400, body: JSON.stringify({ error: 'invalid_grant', link_url: 'javascript:alert(1)' }) };
    expect(await tokens.credential('acme', 'crm', user)).toMatchObject({ kind: 'error', code: CONNECTOR_ERRORS.unavailable });
    vault.answer = { status: 200, body: JSON.stringify({ access_token: 'x'.repeat(20_000) }) };
    expect(await tokens.credential('acme', 'crm', user)).toMatchObject({ kind: 'error', code: CONNECTOR_ERRORS.unavailable });
    // A refused enterprise grant: its own code, the auth service's reason (bounded) and the fallback link.
    vault.answer = {
      status: 400,
      body: JSON.stringify({
        error: 'invalid_grant',
        reason: 'exchange_refused',
        error_description: `the enterprise IdP refused the request (invalid_grant: ${'y'.repeat(2000)})`,
        link_url: 'http://auth.test/t/acme/connectors/crm/link?ticket=t',
      }),
    };
    const refused = await tokens.credential('acme', 'crm', user);
    expect(refused).toMatchObject({
      kind: 'error',
      code: CONNECTOR_ERRORS.exchangeRefused,
      message: expect.stringMatching(
        /^the enterprise IdP refused the request \(invalid_grant: y+; a linked account would be used instead: http:\/\/auth\.test\//,
      ),
    });
    expect(refused.kind === 'error' && refused.message.length).toBeLessThan(700);
    vault.answer = {
      status: 503,
      body: JSON.stringify({ error: 'temporarily_unavailable', error_description: 'the enterprise IdP did not answer in time' }),
    };
    expect(await tokens.credential('acme', 'crm', user)).toMatchObject({
      kind: 'error',
      code: CONNECTOR_ERRORS.unavailable,
      message: expect.stringContaining('did not answer in time'),
    });
    const down = new ConnectorTokens({ authUrl: 'http://127.0.0.1:1', internalToken: 'x'.repeat(16) });
    expect(await down.credential('acme', 'crm', user)).toMatchObject({ kind: 'error', code: CONNECTOR_ERRORS.unavailable });
  });
});
