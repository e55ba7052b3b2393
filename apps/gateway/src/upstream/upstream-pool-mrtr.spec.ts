/**
 * MRTR through a 2026-07-28 upstream (issue 14 item 2): the pool hands a modern caller the
 * upstream's `input_required` as is and forwards its retry fields back; for a legacy caller
 * the SDK fulfils the upstream's input requests through the caller's `askClient` (real
 * server→client requests on the caller's stream).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHandler, inputRequired, McpServer } from '@modelcontextprotocol/server';
import type { Route } from '@switchboard/catalog';
import type { InvokeContext } from '@switchboard/mcp-http';
import pino from 'pino';
import { z } from 'zod';
import { UpstreamPool } from './upstream-pool';

let http: Server;
let url: string;
const seenStates: Array<string | undefined> = [];

beforeAll(async () => {
  const handler = createMcpHandler(
    () => {
      const server = new McpServer({ name: 'shop', version: '2.0.0' });
      server.registerTool(
        'order',
        { description: 'Orders after asking the size', inputSchema: z.object({ item: z.string() }) },
        async ({ item }, ctx) => {
          const answer = (ctx.mcpReq.inputResponses as Record<string, { action?: string; content?: { size?: string } }> | undefined)?.size;
          if (answer?.action !== 'accept') {
            return inputRequired({
              inputRequests: {
                size: inputRequired.elicit({ message: `Which size of ${item}?`, requestedSchema: z.object({ size: z.string() }) }),
              },
              requestState: `shop-state-for-${item}`,
            });
          }
          return { content: [{ type: 'text', text: `ordered ${item} in ${answer.content?.size}` }] };
        },
      );
      return server;
    },
    { legacy: 'reject' },
  );
  http = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks);
        if (body.length > 0) seenStates.push((JSON.parse(body.toString()) as { params?: { requestState?: string } }).params?.requestState);
        const headers = new Headers();
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
        const response = await handler.fetch(
          new Request(`http://127.0.0.1${req.url ?? '/'}`, { method: req.method, headers, ...(body.length > 0 ? { body } : {}) }),
        );
        res.writeHead(response.status, Object.fromEntries(response.headers.entries()));
        if (response.body) for await (const chunk of response.body) res.write(chunk);
        res.end();
      })();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
});

afterAll(async () => {
  http.closeAllConnections();
  await new Promise<void>((resolve) => http.close(() => resolve()));
});

const route = (): Extract<Route, { kind: 'upstream' }> => ({
  kind: 'upstream',
  serverId: 'shop',
  url,
  upstreamName: 'order',
  protocol: 'modern',
});
const pool = () =>
  new UpstreamPool({
    timeoutMs: 10_000,
    maxConcurrency: 4,
    maxResponseBytes: 1 << 20,
    tenantMaxInflight: 10,
    logger: pino({ level: 'silent' }),
  });

function ctx(era: 'legacy' | 'modern', extra: Partial<InvokeContext> = {}): InvokeContext {
  return {
    tenantId: 'acme',
    request: {
      era,
      protocolVersion: era === 'modern' ? '2026-07-28' : '2025-11-25',
      clientCapabilities: { elicitation: {} },
    } as InvokeContext['request'],
    signal: new AbortController().signal,
    progress: () => undefined,
    log: () => undefined,
    ...extra,
  };
}

test("a modern caller gets the upstream's input_required, and its retry carries inputResponses and requestState upstream", async () => {
  const p = pool();
  try {
    const first = (await p.callTool(route(), { item: 'shirt' }, ctx('modern', { askClient: async () => ({}) }))) as unknown as Record<
      string,
      unknown
    >;
    expect(first).toMatchObject({
      resultType: 'input_required',
      requestState: 'shop-state-for-shirt',
      inputRequests: { size: { method: 'elicitation/create', params: { message: 'Which size of shirt?' } } },
    });
    const done = await p.callTool(
      route(),
      { item: 'shirt' },
      ctx('modern', { input: { responses: { size: { action: 'accept', content: { size: 'M' } } }, requestState: 'shop-state-for-shirt' } }),
    );
    expect(done).toMatchObject({ content: [{ type: 'text', text: 'ordered shirt in M' }] });
    expect(seenStates).toContain('shop-state-for-shirt');
  } finally {
    await p.close();
  }
});

test('a legacy caller is asked through askClient (a real server-to-client request) and gets the final result', async () => {
  const p = pool();
  const asked: Array<{ method: string; params: Record<string, unknown> }> = [];
  try {
    const result = await p.callTool(
      route(),
      { item: 'hat' },
      ctx('legacy', {
        askClient: async (method, params) => {
          asked.push({ method, params });
          return { action: 'accept', content: { size: 'L' } };
        },
      }),
    );
    expect(result).toMatchObject({ content: [{ type: 'text', text: 'ordered hat in L' }] });
    expect(asked).toMatchObject([{ method: 'elicitation/create', params: { message: 'Which size of hat?' } }]);
  } finally {
    await p.close();
  }
});
