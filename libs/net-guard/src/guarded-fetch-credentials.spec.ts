import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { guardedFetch } from './guarded-fetch';

/** Two origins on loopback: `localhost:A` redirects to `127.0.0.1:B`; B records what it saw. */
describe('guardedFetch across origins and framing', () => {
  let first: http.Server;
  let second: http.Server;
  let firstBase: string;
  let secondBase: string;
  const seenBySecond: http.IncomingHttpHeaders[] = [];
  const seenByFirst: http.IncomingHttpHeaders[] = [];

  beforeAll(async () => {
    second = http.createServer((req, res) => {
      seenBySecond.push({ ...req.headers });
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
    });
    await new Promise<void>((resolve) => second.listen(0, '127.0.0.1', resolve));
    secondBase = `http://127.0.0.1:${(second.address() as AddressInfo).port}`;
    first = http.createServer((req, res) => {
      seenByFirst.push({ ...req.headers });
      req.resume();
      if (req.url === '/cross') res.writeHead(307, { location: `${secondBase}/landing` }).end();
      else if (req.url === '/same') res.writeHead(307, { location: '/landing' }).end();
      else
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ auth: req.headers.authorization ?? null, key: req.headers['x-api-key'] ?? null }));
    });
    await new Promise<void>((resolve) => first.listen(0, '127.0.0.1', resolve));
    firstBase = `http://localhost:${(first.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => first.close(() => resolve()));
    await new Promise<void>((resolve) => second.close(() => resolve()));
  });

  const fetchAllowed = guardedFetch({ allowHosts: ['localhost', '127.0.0.1'] });
  const credentialed = {
    authorization: 'Bearer tenant-secret',
    'x-api-key': 'tenant-key',
    cookie: 'sid=1',
    'mcp-protocol-version': '2025-11-25',
    'content-type': 'application/json',
  };

  it('drops Authorization, cookies and custom credential headers on a 307 to another origin', async () => {
    seenBySecond.length = 0;
    const res = await fetchAllowed(`${firstBase}/cross`, { method: 'POST', headers: credentialed, body: '{"jsonrpc":"2.0"}' });
    expect(res.status).toBe(200);
    expect(seenBySecond).toHaveLength(1);
    const seen = seenBySecond[0];
    expect(seen.authorization).toBeUndefined();
    expect(seen['x-api-key']).toBeUndefined();
    expect(seen.cookie).toBeUndefined();
    // Protocol headers without secrets still travel.
    expect(seen['mcp-protocol-version']).toBe('2025-11-25');
    expect(seen['content-type']).toBe('application/json');
    expect(JSON.stringify(seen)).not.toContain('tenant-secret');
    expect(JSON.stringify(seen)).not.toContain('tenant-key');
  });

  it('keeps the credential on a redirect within the same origin', async () => {
    const res = await fetchAllowed(`${firstBase}/same`, { headers: credentialed });
    expect(await res.json()).toEqual({ auth: 'Bearer tenant-secret', key: 'tenant-key' });
  });

  it('never sends a caller-supplied host, content-length, transfer-encoding or connection (raw bytes)', async () => {
    const raw: Buffer[] = [];
    const sink = net.createServer((socket) => {
      socket.on('data', (d: Buffer) => {
        raw.push(d);
        if (Buffer.concat(raw).includes('{"x":1}')) socket.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok');
      });
    });
    await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
    try {
      const port = (sink.address() as AddressInfo).port;
      const res = await fetchAllowed(`http://127.0.0.1:${port}/mcp`, {
        method: 'POST',
        headers: { 'content-length': '0', 'transfer-encoding': 'chunked', host: 'evil.example', connection: 'upgrade', 'x-fine': 'yes' },
        body: '{"x":1}',
      });
      expect(await res.text()).toBe('ok');
      const text = Buffer.concat(raw).toString('latin1');
      const head = text.slice(0, text.indexOf('\r\n\r\n')).toLowerCase();
      expect(head).toContain('content-length: 7');
      expect(head).not.toContain('content-length: 0');
      expect(head).not.toContain('transfer-encoding');
      expect(head).not.toContain('evil.example');
      expect(head).not.toContain('upgrade');
      expect(head).toContain(`host: 127.0.0.1:${port}`);
      expect(head).toContain('x-fine: yes');
    } finally {
      await new Promise<void>((resolve) => sink.close(() => resolve()));
    }
  });
});
