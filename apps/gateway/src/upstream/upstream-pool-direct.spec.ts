/**
 * Legacy Streamable HTTP calls go out as direct requests on the SDK client's session (the
 * tenant's fetch carries only the handshake), with the same answers as the SDK path: a JSON
 * result, an event-stream result with the upstream's progress relayed to a caller that asked
 * for it, and `directRequests: false` sending the call through the SDK client again.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Route } from '@switchboard/catalog';
import type { InvokeContext } from '@switchboard/mcp-http';
import pino from 'pino';
import { z } from 'zod';
import { UpstreamPool } from './upstream-pool';

let http: Server;
let url: string;
/** Methods of every POST the upstream received. */
const posted: string[] = [];

beforeAll(async () => {
  http = createServer((req, res) => {
    // Stateless: no standalone GET stream, nothing to DELETE.
    if (req.method !== 'POST') {
      res.writeHead(405).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { method?: string };
      posted.push(body.method ?? 'response');
      const server = new McpServer({ name: 'echo', version: '1.0.0' });
      server.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
      server.registerTool('steps', { inputSchema: {} }, async (_args, extra) => {
        const token = extra._meta?.progressToken;
        if (token !== undefined) {
          for (const progress of [1, 2])
            await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, total: 2 } });
        }
        return { content: [{ type: 'text', text: 'done' }] };
      });
      // Event-stream answers (not JSON): progress travels before the result.
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => void transport.close());
      void server.connect(transport).then(() => transport.handleRequest(req, res, body));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
});

afterAll(async () => {
  http.closeAllConnections();
  await new Promise<void>((resolve) => http.close(() => resolve()));
});

beforeEach(() => {
  posted.length = 0;
});

function ctx(progress: InvokeContext['progress'], progressToken?: string): InvokeContext {
  return {
    tenantId: 'acme',
    request: {
      era: 'legacy',
      protocolVersion: '2025-11-25',
      clientCapabilities: {},
      ...(progressToken ? { progressToken } : {}),
    } as InvokeContext['request'],
    signal: new AbortController().signal,
    progress,
    log: () => undefined,
  };
}

function pool(fetched: string[], directRequests?: boolean): UpstreamPool {
  return new UpstreamPool({
    timeoutMs: 10_000,
    maxConcurrency: 8,
    maxResponseBytes: 1 << 20,
    tenantMaxInflight: 8,
    logger: pino({ level: 'silent' }),
    // The SDK client's requests pass this fetch; direct requests do not.
    fetchFactory: () => (input, init) => {
      const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string }) : undefined;
      if (body?.method) fetched.push(body.method);
      return fetch(input, init);
    },
    ...(directRequests === undefined ? {} : { directRequests }),
  });
}

const route = (name: string): Extract<Route, { kind: 'upstream' }> => ({
  kind: 'upstream',
  serverId: 'echo',
  url,
  upstreamName: name,
  protocol: 'legacy',
});

test('tools/call goes out directly on the session; the SDK client carries only the handshake', async () => {
  const fetched: string[] = [];
  const p = pool(fetched);
  try {
    await expect(
      p.callTool(
        route('echo'),
        { text: 'one' },
        ctx(() => undefined),
      ),
    ).resolves.toMatchObject({ content: [{ type: 'text', text: 'one' }] });
    await expect(
      p.callTool(
        route('echo'),
        { text: 'two' },
        ctx(() => undefined),
      ),
    ).resolves.toMatchObject({ content: [{ type: 'text', text: 'two' }] });
    expect(fetched).toEqual(['initialize', 'notifications/initialized']);
    expect(posted.filter((m) => m === 'tools/call')).toHaveLength(2);
  } finally {
    await p.close();
  }
});

test("the upstream's progress reaches a caller that asked for it, over the direct event stream", async () => {
  const fetched: string[] = [];
  const p = pool(fetched);
  const seen: Array<[number, number | undefined]> = [];
  try {
    await expect(
      p.callTool(
        route('steps'),
        {},
        ctx((progress, total) => seen.push([progress, total]), 'tok-1'),
      ),
    ).resolves.toMatchObject({ content: [{ text: 'done' }] });
    expect(seen).toEqual([
      [1, 2],
      [2, 2],
    ]);
    expect(fetched).not.toContain('tools/call');
    // A caller that did not ask: no progress token upstream, so none is sent.
    seen.length = 0;
    await expect(
      p.callTool(
        route('steps'),
        {},
        ctx((progress, total) => seen.push([progress, total])),
      ),
    ).resolves.toMatchObject({ content: [{ text: 'done' }] });
    expect(seen).toEqual([]);
  } finally {
    await p.close();
  }
});

test('directRequests: false sends the call through the SDK client', async () => {
  const fetched: string[] = [];
  const p = pool(fetched, false);
  try {
    await expect(
      p.callTool(
        route('echo'),
        { text: 'sdk' },
        ctx(() => undefined),
      ),
    ).resolves.toMatchObject({ content: [{ type: 'text', text: 'sdk' }] });
    expect(fetched).toContain('tools/call');
  } finally {
    await p.close();
  }
});
