/**
 * Roots through a stateful upstream (issue 42): the reference server asks `roots/list` on its
 * session's own stream, outside the call, and caches the answer per session. A caller whose client
 * declares roots gets its own upstream session, so the question reaches that caller's call in
 * flight and one caller's roots never answer another's.
 */
import type { Route } from '@switchboard/catalog';
import type { InvokeContext } from '@switchboard/mcp-http';
import { startEverythingServer, type ReferenceServer } from '@switchboard/testing';
import pino from 'pino';
import { UpstreamPool } from './upstream-pool';

let everything: ReferenceServer;

beforeAll(async () => {
  everything = await startEverythingServer();
});

afterAll(async () => {
  await everything?.stop();
});

const route = (): Extract<Route, { kind: 'upstream' }> => ({
  kind: 'upstream',
  serverId: 'everything',
  url: everything.url,
  upstreamName: 'get-roots-list',
  stateful: true,
});

/** A legacy caller that declared roots; `asked` records every roots/list relayed to its client. */
function caller(subject: string, asked: string[]): InvokeContext {
  return {
    tenantId: 'acme',
    auth: { ok: true, subject, scopes: [] },
    request: { era: 'legacy', protocolVersion: '2025-11-25', clientCapabilities: { roots: {} } } as InvokeContext['request'],
    signal: new AbortController().signal,
    progress: () => undefined,
    log: () => undefined,
    askClient: async (method) => {
      asked.push(method);
      return { roots: [{ uri: `file:///home/${subject}`, name: subject }] };
    },
  };
}

const textOf = (result: unknown) => (result as { content: Array<{ text?: string }> }).content[0]?.text ?? '';

test("each roots-declaring caller's roots/list goes to that caller, and its roots only ever answer it", async () => {
  const pool = new UpstreamPool({
    timeoutMs: 10_000,
    maxConcurrency: 4,
    maxResponseBytes: 1 << 20,
    tenantMaxInflight: 10,
    logger: pino({ level: 'silent' }),
  });
  try {
    const alice: string[] = [];
    const bob: string[] = [];
    const first = textOf(await pool.callTool(route(), {}, caller('alice', alice)));
    expect(first).toContain('file:///home/alice');
    expect(alice).toContain('roots/list');
    // On a session shared with alice the server would answer from her cached roots.
    const second = textOf(await pool.callTool(route(), {}, caller('bob', bob)));
    expect(second).toContain('file:///home/bob');
    expect(second).not.toContain('alice');
    expect(bob).toContain('roots/list');
    expect(pool.connectionCount()).toBe(2);
  } finally {
    await pool.close();
  }
});
