import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { modernTaskRequest, TASKS_EXTENSION } from './modern-task-request';

let http: Server;
let url: string;
let answer: (body: { id: number; params: Record<string, unknown> }, res: ServerResponse) => void = () => undefined;
const seen: Array<{ headers: IncomingMessage['headers']; body: { id: number; method: string; params: Record<string, unknown> } }> = [];

beforeAll(async () => {
  http = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: number; method: string; params: Record<string, unknown> };
      seen.push({ headers: req.headers, body });
      answer(body, res);
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
});

afterAll(async () => {
  http.closeAllConnections();
  await new Promise<void>((resolve) => http.close(() => resolve()));
});

const target = () => ({
  url,
  clientInfo: { name: 'gw', version: '1' },
  capabilities: { elicitation: { form: {} } },
  headers: { 'x-api-key': 'k' },
});
const opts = { timeout: 5_000, maxBytes: 4_096 };

describe('modernTaskRequest', () => {
  it('declares the tasks extension over the connection capabilities, with the SEP-2243 headers', async () => {
    answer = (b, res) =>
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: b.id, result: { resultType: 'task', taskId: 'u1' } }));
    expect(await modernTaskRequest(target(), 'tools/call', { name: 'research', arguments: {} }, opts)).toEqual({
      resultType: 'task',
      taskId: 'u1',
    });
    const { headers, body } = seen.at(-1)!;
    expect(headers).toMatchObject({
      'mcp-method': 'tools/call',
      'mcp-name': 'research',
      'mcp-protocol-version': '2026-07-28',
      'x-api-key': 'k',
    });
    expect((body.params._meta as Record<string, unknown>)['io.modelcontextprotocol/clientCapabilities']).toEqual({
      elicitation: { form: {} },
      extensions: { [TASKS_EXTENSION]: {} },
    });
  });

  it('reads the answer out of an event stream, past notifications', async () => {
    answer = (b, res) =>
      res
        .writeHead(200, { 'content-type': 'text/event-stream' })
        .end(
          `event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{}}\n\nevent: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: b.id, result: { status: 'working' } })}\n\n`,
        );
    expect(await modernTaskRequest(target(), 'tasks/get', { taskId: 'u1' }, opts)).toEqual({ status: 'working' });
    expect(seen.at(-1)!.headers['mcp-name']).toBe('u1');
  });

  it("throws a 4xx answer's JSON-RPC error as an McpError", async () => {
    answer = (b, res) =>
      res
        .writeHead(400, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: b.id, error: { code: -32602, message: 'Task not found: u9' } }));
    await expect(modernTaskRequest(target(), 'tasks/get', { taskId: 'u9' }, opts)).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('Task not found: u9'),
    });
  });

  it('refuses an answer over its byte bound', async () => {
    answer = (b, res) =>
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: b.id, result: { pad: 'x'.repeat(5_000) } }));
    await expect(modernTaskRequest(target(), 'tasks/get', { taskId: 'u1' }, opts)).rejects.toThrow('larger than 4096 bytes');
  });
});
