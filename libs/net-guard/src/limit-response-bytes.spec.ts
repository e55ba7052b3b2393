import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { guardedFetch } from './guarded-fetch';
import { limitResponseBytes } from './limit-response-bytes';
import { ResponseTooLargeError } from './response-too-large-error';

describe('limitResponseBytes', () => {
  let server: http.Server;
  let base: string;
  let bytesWritten = 0;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      if (req.url === '/big') {
        // 10 MB streamed in 64 KiB chunks without a content-length.
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(64 * 1024, 0x61);
        let left = 160;
        const pump = () => {
          while (left > 0) {
            left--;
            bytesWritten += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          res.end();
        };
        res.on('close', () => (left = 0));
        pump();
      } else if (req.url === '/declared') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(5000) }).end('x'.repeat(5000));
      } else if (req.url === '/events') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (let i = 0; i < 50; i++) res.write(`event: message\ndata: ${'y'.repeat(500)}\n\n`);
        res.end(`data: ${'z'.repeat(3000)}\n\n`);
      } else if (req.url === '/crash') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"jsonrpc":"2.0","id":1,"result":{"content":[');
        setImmediate(() => res.socket?.destroy());
      } else {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"small":true}');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const inner = guardedFetch({ allowHosts: ['127.0.0.1'] });

  it('passes a body under the limit through unchanged', async () => {
    const f = limitResponseBytes(inner, () => ({ maxBytes: 1024 }));
    expect(await (await f(`${base}/small`)).json()).toEqual({ small: true });
  });

  it('aborts a streamed body past the limit and tells the caller once', async () => {
    const exceeded: ResponseTooLargeError[] = [];
    const f = limitResponseBytes(inner, () => ({ maxBytes: 256 * 1024, onExceeded: (e) => exceeded.push(e) }));
    const err = await (await f(`${base}/big`)).text().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResponseTooLargeError);
    expect((err as ResponseTooLargeError).message).toBe('upstream response exceeded 262144 bytes');
    expect(exceeded).toHaveLength(1);
    // The upstream was cut off well before its 10 MB.
    expect(bytesWritten).toBeLessThan(10 * 1024 * 1024);
  });

  it('refuses a declared content-length over the limit before reading', async () => {
    const f = limitResponseBytes(inner, () => ({ maxBytes: 1000 }));
    const err = await f(`${base}/declared`).catch((e: unknown) => e);
    expect((err as ResponseTooLargeError).unit).toBe('response');
    expect((err as ResponseTooLargeError).maxBytes).toBe(1000);
  });

  it('bounds event streams per event: many small events pass, one large event fails', async () => {
    const f = limitResponseBytes(inner, () => ({ maxBytes: 2000 }));
    const err = await (await f(`${base}/events`)).text().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResponseTooLargeError);
    expect((err as ResponseTooLargeError).message).toBe('upstream server-sent event exceeded 2000 bytes');
    const g = limitResponseBytes(inner, () => ({ maxBytes: 4000 }));
    const text = await (await g(`${base}/events`)).text();
    expect(text.length).toBeGreaterThan(25_000);
  });

  it('bounds a whole event stream with maxStreamBytes: small events past it fail with unit stream', async () => {
    const exceeded: ResponseTooLargeError[] = [];
    // 50 events of about 520 bytes, each well under the per-event bound.
    const f = limitResponseBytes(inner, () => ({ maxBytes: 4000, maxStreamBytes: 10_000, onExceeded: (e) => exceeded.push(e) }));
    const err = await (await f(`${base}/events`)).text().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResponseTooLargeError);
    expect(err).toMatchObject({ unit: 'stream', maxBytes: 10_000, message: 'upstream event stream exceeded 10000 bytes' });
    expect(exceeded).toEqual([err]);
    const g = limitResponseBytes(inner, () => ({ maxBytes: 4000, maxStreamBytes: 100_000 }));
    expect((await (await g(`${base}/events`)).text()).length).toBeGreaterThan(25_000);
  });

  it('reports a body broken mid-way (upstream crash)', async () => {
    const broken: unknown[] = [];
    const f = limitResponseBytes(inner, () => ({ maxBytes: 1024, onBroken: (e) => broken.push(e) }));
    const err = await (await f(`${base}/crash`)).text().catch((e: unknown) => e);
    expect(err).toBeDefined();
    expect(broken).toHaveLength(1);
  });
});
