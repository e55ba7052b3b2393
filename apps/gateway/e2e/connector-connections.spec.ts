import pino from 'pino';
import type { InvokeContext } from '@switchboard/mcp-http';
import { GatewayUpstream } from '../src/upstream/gateway-upstream';
import { UpstreamPool } from '../src/upstream/upstream-pool';
import { TestUpstream } from '@switchboard/testing';

/**
 * Per-user connector tokens key one upstream connection each (and every refresh a new one):
 * the pool's connection table stays bounded, closing the least recently used idle connections,
 * while every user's call still carries that user's own token.
 */
describe('upstream connections of per-user connectors are bounded', () => {
  let upstream: TestUpstream;

  beforeAll(async () => {
    upstream = await TestUpstream.start({ stateful: false, name: 'crm' });
  });
  afterAll(async () => {
    await upstream?.stop();
  });

  const ctx = (user: string): InvokeContext => ({
    tenantId: 'acme',
    request: {} as InvokeContext['request'],
    signal: new AbortController().signal,
    progress: () => undefined,
    log: () => undefined,
    auth: { ok: true, subject: user, scopes: [], token: `client-token-of-${user}` },
  });

  it('keeps at most maxConnections open across many users, each call with its user token', async () => {
    const pool = new UpstreamPool({
      timeoutMs: 10_000,
      maxConcurrency: 8,
      maxResponseBytes: 1024 * 1024,
      tenantMaxInflight: 64,
      logger: pino({ level: 'silent' }),
      maxConnections: 3,
    });
    // The user's credential is resolved before the pool, which keys a connection per credential.
    const upstreamCalls = new GatewayUpstream(pool, (_tenant, _server, c) =>
      Promise.resolve({ kind: 'token', token: `upstream-token-of-${c.auth?.subject ?? ''}` }),
    );
    const route = { kind: 'upstream' as const, serverId: 'crm', url: upstream.url, upstreamName: 'whoami' };
    try {
      for (let i = 0; i < 12; i++) {
        const result = await upstreamCalls.callTool(route, {}, ctx(`user${i}`));
        expect(result.content[0]).toEqual({ type: 'text', text: `authorization=Bearer upstream-token-of-user${i}` });
        expect(pool.connectionCount()).toBeLessThanOrEqual(3);
      }
      // An evicted user's connection is simply reopened.
      expect((await upstreamCalls.callTool(route, {}, ctx('user0'))).content[0]).toEqual({
        type: 'text',
        text: 'authorization=Bearer upstream-token-of-user0',
      });
      expect(upstream.seen.every((r) => !String(r.headers.authorization ?? '').includes('client-token-of'))).toBe(true);
    } finally {
      await pool.close();
    }
  }, 60_000);
});
