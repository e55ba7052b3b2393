/**
 * directRequest against local HTTP servers that answer the way upstreams do — well (JSON, an
 * event stream with progress and a server→client request) and badly (oversized, broken, the
 * wrong id, an error status, a redirect) — and a cancelled call telling the upstream.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { ResponseTooLargeError } from '@switchboard/net-guard';
import { pollUntil } from '@switchboard/testing';
import { directEventCounts, directRequest, upstreamDispatcher } from './direct-request';
import type { DirectSession } from './direct-session';
import { UpstreamProtocolError, UpstreamRedirectedError, UpstreamResponseBrokenError } from './upstream-errors';

type Handler = (msg: Record<string, unknown>, req: IncomingMessage, res: ServerResponse) => void;

let server: Server;
let base: string;
let handler: Handler;
/** Every message the server received, with its headers. */
const received: Array<{ msg: Record<string, unknown>; headers: IncomingMessage['headers'] }> = [];
const dispatcher = upstreamDispatcher();

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const msg = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      received.push({ msg, headers: req.headers });
      if (msg.id === undefined || msg.method === undefined) {
        // A notification or our answer to the server's request: accepted.
        res.writeHead(202).end();
        return;
      }
      handler(msg, req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await dispatcher.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  received.length = 0;
});

function session(answer: DirectSession['answer'] = () => Promise.reject(new Error('no relay'))): DirectSession {
  return {
    url: new URL(`${base}/mcp`),
    headers: { 'x-api-key': 'k1' },
    sessionId: () => 'sess-1',
    protocolVersion: () => '2025-06-18',
    dispatcher,
    answer,
  };
}

const json = (res: ServerResponse, body: unknown, status = 200) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
const opts = (extra: Partial<Parameters<typeof directRequest>[3]> = {}) => ({
  signal: new AbortController().signal,
  maxBytes: 4096,
  ...extra,
});

test('a JSON answer: the result, the session headers and the upstream credential sent', async () => {
  handler = (msg, _req, res) => json(res, { jsonrpc: '2.0', id: msg.id, result: { content: [{ type: 'text', text: 'hi' }] } });
  const result = await directRequest(
    session(),
    'tools/call',
    { name: 'echo', arguments: { text: 'hi' } },
    opts({ headers: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' } }),
  );
  expect(result).toEqual({ content: [{ type: 'text', text: 'hi' }] });
  const { msg, headers } = received[0]!;
  expect(msg).toMatchObject({ jsonrpc: '2.0', method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } });
  expect(headers).toMatchObject({
    'mcp-session-id': 'sess-1',
    'mcp-protocol-version': '2025-06-18',
    'x-api-key': 'k1',
    traceparent: expect.stringMatching(/^00-0af7/),
  });
  expect(headers.accept).toBe('application/json, text/event-stream');
});

test('an event-stream answer relays progress and answers the server-to-client request before the result', async () => {
  handler = (msg, _req, res) => {
    const token = (msg.params as { _meta?: { progressToken?: unknown } })._meta?.progressToken;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(
      `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: 1, total: 2 } })}\n\n`,
    );
    // Split across writes, CRLF line ends: the splitter joins the pieces.
    const ask = JSON.stringify({ jsonrpc: '2.0', id: 'ask-1', method: 'roots/list', params: {} });
    res.write(`data: ${ask.slice(0, 10)}`);
    res.write(`${ask.slice(10)}\r\n\r\n`);
    const poll = setInterval(() => {
      const reply = received.find((r) => r.msg.id === 'ask-1' && r.msg.result !== undefined);
      if (!reply) return;
      clearInterval(poll);
      res.end(
        `data: ${JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { content: [], structuredContent: { roots: (reply.msg.result as { roots: unknown[] }).roots.length } } })}\n\n`,
      );
    }, 5);
  };
  const progress: unknown[] = [];
  const asked: string[] = [];
  const result = await directRequest(
    session(async (method) => {
      asked.push(method);
      return { roots: [{ uri: 'file:///a' }] };
    }),
    'tools/call',
    { name: 'slow', arguments: {} },
    opts({ onprogress: (p) => progress.push(p) }),
  );
  expect(result).toEqual({ content: [], structuredContent: { roots: 1 } });
  expect(progress).toEqual([{ progress: 1, total: 2 }]);
  expect(asked).toEqual(['roots/list']);
});

test('notification events a call would drop are skipped unparsed; the rest, and the answer, are parsed', async () => {
  const note = (token: unknown, i: number, head = true): string =>
    head
      ? JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: i } })
      : JSON.stringify({ params: { progressToken: token, progress: i }, method: 'notifications/progress', jsonrpc: '2.0' });
  handler = (msg, _req, res) => {
    const token = (msg.params as { _meta?: { progressToken?: unknown } })._meta?.progressToken;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (let i = 1; i <= 4; i++) res.write(`data: ${note(token, i)}\n\n`);
    // Another member order is not recognised without parsing: parsed, as before.
    res.write(`data: ${note(token, 5, false)}\n\n`);
    res.end(`data: ${JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { content: [] } })}\n\n`);
  };
  // Relaying until two notifications went through, as a response channel over its budget.
  Object.assign(directEventCounts, { parsed: 0, skipped: 0 });
  const progress: number[] = [];
  await directRequest(
    session(),
    'tools/call',
    { name: 'n', arguments: {} },
    opts({ onprogress: (p) => progress.push(p.progress), relaying: () => progress.length < 2 }),
  );
  // 3 and 4 skipped; 5 (reordered) parsed and handed on, where the response channel drops it.
  expect(progress).toEqual([1, 2, 5]);
  expect(directEventCounts).toEqual({ parsed: 4, skipped: 2, paused: 0 });
  // Nobody asked for progress: every progress notification in the usual order is skipped.
  Object.assign(directEventCounts, { parsed: 0, skipped: 0 });
  expect(await directRequest(session(), 'tools/call', { name: 'n', arguments: {} }, opts())).toEqual({ content: [] });
  expect(directEventCounts).toEqual({ parsed: 2, skipped: 4, paused: 0 });
});

test('an event stream past maxStreamBytes fails with a ResponseTooLargeError of unit stream', async () => {
  handler = (_msg, _req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (let i = 0; i < 100; i++)
      res.write(
        `data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x'.repeat(200) } })}\n\n`,
      );
    res.end();
  };
  const err = await directRequest(session(), 'tools/call', { name: 'n', arguments: {} }, opts({ maxStreamBytes: 5000 })).catch(
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ResponseTooLargeError);
  expect(err).toMatchObject({ unit: 'stream', maxBytes: 5000 });
});

test('event streams with CR or CRLF line ends, and a character split between two writes', async () => {
  const progress: Array<{ progress: number; total?: number; message?: string }> = [];
  handler = (msg, _req, res) => {
    const token = (msg.params as { _meta?: { progressToken?: unknown } })._meta?.progressToken;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(
      `data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: 1, message: 'r' } })}\r\r`,
    );
    res.write(
      `data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: 2, message: 'rn' } })}\r\n\r\n`,
    );
    const answer = Buffer.from(
      `data: ${JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { content: [{ type: 'text', text: 'é' }] } })}\n\n`,
    );
    const cut = answer.indexOf(Buffer.from('é')) + 1;
    res.write(answer.subarray(0, cut));
    res.end(answer.subarray(cut));
  };
  await expect(
    directRequest(session(), 'tools/call', { name: 't', arguments: {} }, opts({ onprogress: (p) => progress.push(p) })),
  ).resolves.toEqual({ content: [{ type: 'text', text: 'é' }] });
  expect(progress).toEqual([
    { progress: 1, message: 'r' },
    { progress: 2, message: 'rn' },
  ]);
});

test('a relay the call cannot answer is refused upstream with its JSON-RPC error', async () => {
  handler = (msg, _req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'sampling/createMessage', params: {} })}\n\n`);
    const poll = setInterval(() => {
      if (!received.some((r) => r.msg.id === 7 && r.msg.error !== undefined)) return;
      clearInterval(poll);
      res.end(`data: ${JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { content: [] } })}\n\n`);
    }, 5);
  };
  const refusal = new McpError(-32601, 'Method not found: sampling/createMessage');
  await expect(
    directRequest(
      session(() => Promise.reject(refusal)),
      'tools/call',
      { name: 't', arguments: {} },
      opts(),
    ),
  ).resolves.toEqual({ content: [] });
  expect(received.find((r) => r.msg.id === 7)?.msg.error).toMatchObject({
    code: -32601,
    message: expect.stringContaining('sampling/createMessage'),
  });
});

test('bodies past the byte bound are refused: declared, chunked, and one event of a stream', async () => {
  handler = (msg, _req, res) =>
    json(res, { jsonrpc: '2.0', id: msg.id, result: { content: [{ type: 'text', text: 'x'.repeat(10_000) }] } });
  await expect(directRequest(session(), 'tools/call', { name: 'big', arguments: {} }, opts())).rejects.toEqual(
    expect.objectContaining({ name: 'ResponseTooLargeError', unit: 'response', maxBytes: 4096 }),
  );
  handler = (_msg, _req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"');
    res.write('y'.repeat(8_000));
    res.end('"}]}}');
  };
  await expect(directRequest(session(), 'tools/call', { name: 'big', arguments: {} }, opts())).rejects.toBeInstanceOf(
    ResponseTooLargeError,
  );
  handler = (_msg, _req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(`data: ${'z'.repeat(3_000)}`);
    res.write('z'.repeat(3_000));
  };
  await expect(directRequest(session(), 'tools/call', { name: 'big', arguments: {} }, opts())).rejects.toEqual(
    expect.objectContaining({ name: 'ResponseTooLargeError', unit: 'event' }),
  );
});

test('malformed answers: the wrong id, no result, not JSON, a JSON-RPC error, an error status, a redirect', async () => {
  const call = () => directRequest(session(), 'tools/call', { name: 't', arguments: {} }, opts());
  handler = (_msg, _req, res) => json(res, { jsonrpc: '2.0', id: 12345, result: { content: [] } });
  await expect(call()).rejects.toThrow(/^the answer is for another request \(id 12345, expected \d+\)$/);
  handler = (msg, _req, res) => json(res, { jsonrpc: '2.0', id: msg.id, result: [1] });
  await expect(call()).rejects.toThrow('the answer has no result object');
  handler = (_msg, _req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{not json');
  await expect(call()).rejects.toBeInstanceOf(UpstreamProtocolError);
  handler = (msg, _req, res) =>
    json(res, { jsonrpc: '2.0', id: msg.id, error: { code: -32602, message: 'bad arguments', data: { field: 'text' } } });
  await expect(call()).rejects.toEqual(expect.objectContaining({ code: -32602, data: { field: 'text' } }));
  handler = (_msg, _req, res) => json(res, { error: 'session not found' }, 404);
  const gone = await call().catch((e: unknown) => e);
  expect(gone).toBeInstanceOf(StreamableHTTPError);
  expect(gone).toMatchObject({ code: 404, message: expect.stringContaining('session not found') });
  handler = (_msg, _req, res) => res.writeHead(307, { location: `${base}/elsewhere` }).end();
  await expect(call()).rejects.toBeInstanceOf(UpstreamRedirectedError);
  handler = (_msg, _req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>');
  await expect(call()).rejects.toThrow('Unexpected content type: text/html');
});

test('an answer broken off mid-way, and an event stream that ends before the answer', async () => {
  handler = (_msg, _req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '500' });
    res.write('{"jsonrpc":"2.0",');
    setImmediate(() => res.socket?.destroy());
  };
  await expect(directRequest(session(), 'tools/call', { name: 't', arguments: {} }, opts())).rejects.toBeInstanceOf(
    UpstreamResponseBrokenError,
  );
  handler = (_msg, _req, res) => res.writeHead(200, { 'content-type': 'text/event-stream' }).end(': just a comment\n\n');
  await expect(directRequest(session(), 'tools/call', { name: 't', arguments: {} }, opts())).rejects.toThrow(
    'the response broke off mid-way (the event stream ended before the answer)',
  );
});

test('a cancelled call rejects with its reason and tells the upstream notifications/cancelled', async () => {
  let hold: ServerResponse | undefined;
  handler = (_msg, _req, res) => {
    hold = res;
  };
  const ctl = new AbortController();
  const call = directRequest(session(), 'tools/call', { name: 'hang', arguments: {} }, opts({ signal: ctl.signal }));
  await pollUntil('the request to arrive', () => (hold ? true : undefined));
  const id = received[0]!.msg.id;
  ctl.abort(new Error('client left'));
  await expect(call).rejects.toThrow('client left');
  const cancelled = await pollUntil('notifications/cancelled upstream', () =>
    received.find((r) => r.msg.method === 'notifications/cancelled'),
  );
  expect(cancelled.msg.params).toEqual({ requestId: id, reason: 'client left' });
  expect(cancelled.headers['mcp-session-id']).toBe('sess-1');
  hold?.end();
});

describe('pacing notification bytes', () => {
  const NOTE = 32 * 1024;
  /** Streams `count` progress notifications of NOTE bytes (honouring backpressure), then the answer. */
  const flood =
    (count: number, state: { written: number; blocked: boolean }): Handler =>
    (msg, _req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const event = `data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p', progress: 1, message: 'x'.repeat(NOTE) } })}\n\n`;
      const pump = (): void => {
        while (state.written < count && !res.destroyed) {
          state.written++;
          if (!res.write(event)) {
            state.blocked = true;
            res.once('drain', () => {
              state.blocked = false;
              pump();
            });
            return;
          }
        }
        if (!res.destroyed) res.end(`data: ${JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { content: [] } })}\n\n`);
      };
      pump();
    };

  test('a call over its share pauses reading and still gets its answer', async () => {
    const state = { written: 0, blocked: false };
    handler = flood(64, state);
    const paused = directEventCounts.paused;
    const metered: number[] = [];
    // A share of 4 notifications, then 20 ms owed per notification.
    const pace = (bytes: number): number => (metered.push(bytes), metered.length > 4 ? 20 : 0);
    const result = await directRequest(session(), 'tools/call', { name: 'flood' }, opts({ maxBytes: 64 * 1024, pace }));
    expect(result).toEqual({ content: [] });
    expect(metered).toHaveLength(64);
    expect(metered[0]).toBeGreaterThan(NOTE);
    expect(directEventCounts.paused).toBeGreaterThan(paused);
  });

  test('a paused call stops reading: the upstream blocks, and an abort still ends the call', async () => {
    const state = { written: 0, blocked: false };
    handler = flood(4096, state);
    const paused = directEventCounts.paused;
    const abort = new AbortController();
    const call = directRequest(
      session(),
      'tools/call',
      { name: 'flood' },
      { signal: abort.signal, maxBytes: 64 * 1024, pace: () => 600_000 },
    );
    await pollUntil('the upstream blocked on a paused reader', () => state.blocked && directEventCounts.paused > paused, 10_000);
    expect(state.written).toBeLessThan(4096);
    abort.abort(new Error('caller gave up'));
    await expect(call).rejects.toThrow('caller gave up');
  });
});
