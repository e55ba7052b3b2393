import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { boundedFetch } from './bounded-fetch';
import { guardedFetch } from './guarded-fetch';
import { ResponseTooLargeError } from './response-too-large-error';

describe('boundedFetch', () => {
  let server: http.Server;
  let base: string;
  const open = new Set<http.ServerResponse>();

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      open.add(res);
      res.on('close', () => open.delete(res));
      if (req.url === '/drip') {
        // A body that never ends: one byte now, then nothing.
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{');
      } else if (req.url === '/endless') {
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(64 * 1024, 0x61);
        const pump = (): void => {
          while (!res.destroyed && res.write(chunk));
          if (!res.destroyed) res.once('drain', pump);
        };
        pump();
      } else if (req.url === '/declared') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '5000' }).end('x'.repeat(5000));
      } else if (req.url === '/hang') {
        // No status line at all.
      } else {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const res of open) res.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const inner = guardedFetch({ allowHosts: ['127.0.0.1'] });

  it('returns a small body whole, readable after the call', async () => {
    const res = await boundedFetch(inner, { timeoutMs: 2000, maxBytes: 1024 })(`${base}/ok`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
  });

  it('fails with TimeoutError when the body never ends', async () => {
    const err = await boundedFetch(inner, { timeoutMs: 300, maxBytes: 1024 })(`${base}/drip`).catch((e: unknown) => e);
    expect((err as Error).name).toBe('TimeoutError');
  });

  it('fails with TimeoutError when no answer comes, even if the inner fetch ignores the signal', async () => {
    const deaf = (url: string | URL): Promise<Response> => inner(url);
    const err = await boundedFetch(deaf, { timeoutMs: 300, maxBytes: 1024 })(`${base}/hang`).catch((e: unknown) => e);
    expect((err as Error).name).toBe('TimeoutError');
  });

  it('stops reading an endless body at the byte cap', async () => {
    const err = await boundedFetch(inner, { timeoutMs: 5000, maxBytes: 256 * 1024 })(`${base}/endless`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResponseTooLargeError);
    expect((err as ResponseTooLargeError).maxBytes).toBe(256 * 1024);
  });

  it('refuses a declared length over the cap before reading', async () => {
    const err = await boundedFetch(inner, { timeoutMs: 2000, maxBytes: 1000 })(`${base}/declared`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ResponseTooLargeError);
  });
});
