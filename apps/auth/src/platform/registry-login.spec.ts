import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyConsoleLogin } from './registry-login';

const TOKEN = 'internal-token-for-unit-tests-0123';
const LOGIN = { tenant: 'acme', username: 'alice', password: 'pw' };

/** A loopback server answering every request with the next canned response. */
async function cannedServer(): Promise<{ url: string; next: { status: number; body: string }; close(): Promise<void>; server: Server }> {
  const state = { url: '', next: { status: 200, body: '{}' }, close: async () => undefined, server: createServer() };
  state.server.on('request', (req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(state.next.status, { 'content-type': 'application/json' });
      res.end(state.next.body);
    });
  });
  await new Promise<void>((r) => state.server.listen(0, '127.0.0.1', () => r()));
  state.url = `http://127.0.0.1:${(state.server.address() as AddressInfo).port}`;
  state.close = () => new Promise<undefined>((r) => state.server.close(() => r(undefined)));
  return state;
}

describe('verifyConsoleLogin', () => {
  let srv: Awaited<ReturnType<typeof cannedServer>>;
  beforeAll(async () => {
    srv = await cannedServer();
  });
  afterAll(async () => srv?.close());

  const ask = () => verifyConsoleLogin({ registryUrl: srv.url, internalToken: TOKEN, timeoutMs: 2000 }, LOGIN);

  it('accepts a well-formed yes and keeps the display name', async () => {
    srv.next = { status: 200, body: JSON.stringify({ ok: true, tenant: 'acme', username: 'alice', name: ' Alice Example ' }) };
    await expect(ask()).resolves.toEqual({ outcome: 'ok', tenant: 'acme', username: 'alice', name: 'Alice Example' });
  });

  it('falls back to the user name when the registry sends no name', async () => {
    srv.next = { status: 200, body: JSON.stringify({ ok: true, tenant: 'acme', username: 'alice' }) };
    await expect(ask()).resolves.toMatchObject({ outcome: 'ok', name: 'alice' });
  });

  it.each([
    [401, JSON.stringify({ ok: false })],
    [401, ''],
    [200, JSON.stringify({ ok: false })],
  ])('is denied on %s %s', async (status, body) => {
    srv.next = { status, body };
    await expect(ask()).resolves.toEqual({ outcome: 'denied' });
  });

  it.each([
    [503, JSON.stringify({ error: 'down' })],
    [500, 'oops'],
    [403, JSON.stringify({ error: 'internal token required' })],
    [200, 'not json'],
    [200, JSON.stringify({ ok: true, tenant: 'other', username: 'alice' })],
    [200, JSON.stringify({ ok: true, tenant: 'acme', username: 'al|ice' })],
  ])('is unavailable on %s %s', async (status, body) => {
    srv.next = { status, body };
    await expect(ask()).resolves.toMatchObject({ outcome: 'unavailable' });
  });

  it('is unavailable when nothing listens', async () => {
    const closed = await cannedServer();
    await closed.close();
    await expect(verifyConsoleLogin({ registryUrl: closed.url, internalToken: TOKEN }, LOGIN)).resolves.toMatchObject({
      outcome: 'unavailable',
    });
  });
});
