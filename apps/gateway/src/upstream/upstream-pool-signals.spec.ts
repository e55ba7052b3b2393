/**
 * Each proxied call's fetch carries that call's own signal, never the SDK transport's one
 * long-lived signal: a fetch leaves an abort listener on the signal it is given until the
 * request is garbage-collected (and adding one walks all of them), so a shared signal made
 * every call slower than the last. The call's signal still carries its client's cancellation.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getEventListeners } from 'node:events';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Route } from '@switchboard/catalog';
import type { InvokeContext } from '@switchboard/mcp-http';
import pino from 'pino';
import { z } from 'zod';
import { UpstreamPool } from './upstream-pool';

let http: Server;
let url: string;
let release: (() => void) | undefined;

beforeAll(async () => {
  http = createServer((req, res) => {
    const server = new McpServer({ name: 'echo', version: '1.0.0' });
    server.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => {
      if (text === 'hang') await new Promise<void>((resolve) => (release = resolve));
      return { content: [{ type: 'text', text }] };
    });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on('close', () => void transport.close());
    void server.connect(transport).then(() => transport.handleRequest(req, res));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
});

afterAll(async () => {
  release?.();
  http.closeAllConnections();
  await new Promise<void>((resolve) => http.close(() => resolve()));
});

const route: Extract<Route, { kind: 'upstream' }> = {
  kind: 'upstream',
  serverId: 'echo',
  url: 'set in test',
  upstreamName: 'echo',
  protocol: 'legacy',
};

function ctx(signal = new AbortController().signal): InvokeContext {
  return {
    tenantId: 'acme',
    request: {
      era: 'legacy',
      protocolVersion: '2025-11-25',
      clientCapabilities: {},
    } as InvokeContext['request'],
    signal,
    progress: () => undefined,
    log: () => undefined,
  };
}

function poolWith(fetchImpl: NonNullable<ConstructorParameters<typeof UpstreamPool>[0]['fetchFactory']>): UpstreamPool {
  return new UpstreamPool({
    timeoutMs: 10_000,
    maxConcurrency: 8,
    maxResponseBytes: 1 << 20,
    tenantMaxInflight: 8,
    logger: pino({ level: 'silent' }),
    fetchFactory: fetchImpl,
    // The SDK client's path (SSE upstreams, 2026-07-28 ones, redirected calls): direct requests are off.
    directRequests: false,
  });
}

test("every call's request carries its own signal, and the transport's signal collects no listener per call", async () => {
  const callSignals: AbortSignal[] = [];
  const otherSignals = new Set<AbortSignal>();
  const pool = poolWith(() => (input, init) => {
    const isCall = typeof init?.body === 'string' && init.body.includes('"tools/call"');
    if (init?.signal && isCall) callSignals.push(init.signal);
    else if (init?.signal) otherSignals.add(init.signal);
    return fetch(input, init);
  });
  try {
    const r = { ...route, url };
    for (let i = 0; i < 20; i++)
      await expect(pool.callTool(r, { text: `n${i}` }, ctx())).resolves.toMatchObject({ content: [{ text: `n${i}` }] });
    expect(new Set(callSignals).size).toBe(20);
    for (const s of callSignals) expect(otherSignals.has(s)).toBe(false);
    // The handshake's (transport) signal: a listener or two of its own requests, not one per call.
    for (const s of otherSignals) expect(getEventListeners(s, 'abort').length).toBeLessThan(5);
  } finally {
    await pool.close();
  }
});

test("the client's cancellation still aborts the call's upstream request", async () => {
  let callSignal: AbortSignal | undefined;
  const pool = poolWith(() => (input, init) => {
    if (typeof init?.body === 'string' && init.body.includes('"hang"')) callSignal = init.signal ?? undefined;
    return fetch(input, init);
  });
  try {
    const client = new AbortController();
    const call = pool.callTool({ ...route, url }, { text: 'hang' }, ctx(client.signal));
    const deadline = Date.now() + 5_000;
    while (!release && Date.now() < deadline) await new Promise((resolve) => setImmediate(resolve));
    client.abort(new Error('client left'));
    await expect(call).rejects.toThrow();
    expect(callSignal?.aborted).toBe(true);
  } finally {
    release?.();
    await pool.close();
  }
});
