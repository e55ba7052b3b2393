import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { drainRequest } from './drain-request';

/** A server whose handler drains the body with the given bounds, then answers with the outcome. */
async function drainingServer(limit: number, timeoutMs: number): Promise<{ server: Server; port: number }> {
  const server = createServer((req: IncomingMessage, res) => {
    void drainRequest(req, limit, timeoutMs).then((drained) => {
      res.writeHead(413, { connection: 'close', 'content-type': 'text/plain' });
      res.end(drained ? 'drained' : 'bound hit');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

function upload(port: number, body: Buffer): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ port, host: '127.0.0.1', method: 'POST', headers: { 'content-length': body.length } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('drainRequest', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  });

  it('reads a refused body to its end, so the client gets the answer and not a reset', async () => {
    const started = await drainingServer(8 * 1024 * 1024, 10_000);
    server = started.server;
    const res = await upload(started.port, Buffer.alloc(4 * 1024 * 1024, 0x61));
    expect(res).toEqual({ status: 413, text: 'drained' });
  });

  it('stops at the byte bound and says so', async () => {
    const started = await drainingServer(1024, 10_000);
    server = started.server;
    const outcome = await upload(started.port, Buffer.alloc(2 * 1024 * 1024, 0x61)).then(
      (res) => res.text,
      (err: NodeJS.ErrnoException) => err.code,
    );
    // Past the bound the answer is written early: the client reads it or sees the socket close.
    expect(['bound hit', 'ECONNRESET', 'EPIPE']).toContain(outcome);
  });

  it('resolves at once for a body already read', async () => {
    const server2 = createServer((req, res) => {
      req.resume();
      req.on('end', () => void drainRequest(req).then((drained) => res.end(String(drained))));
    });
    server = server2;
    await new Promise<void>((resolve) => server2.listen(0, '127.0.0.1', resolve));
    const res = await upload((server2.address() as AddressInfo).port, Buffer.from('{}'));
    expect(res.text).toBe('true');
  });
});
