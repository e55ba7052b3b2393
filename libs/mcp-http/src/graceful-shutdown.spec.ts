import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { GracefulShutdown, type GracefulShutdownOptions } from './graceful-shutdown';

function request(
  port: number,
  agent: http.Agent | false,
  path: string,
): Promise<{ status?: number; connection?: string; body: string; error?: string }> {
  return new Promise((resolve) => {
    http
      .get({ host: '127.0.0.1', port, path, agent }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode, connection: res.headers.connection, body }));
      })
      .on('error', (err: NodeJS.ErrnoException) => resolve({ body: '', error: err.code }));
  });
}

describe('GracefulShutdown', () => {
  let server: http.Server;
  let port: number;
  let release: () => void = () => undefined;
  let served: string[] = [];
  /** The server's one listener asks the shutdown first, as the gateway's FrontDoor does. */
  let admitting: GracefulShutdown | undefined;
  const start = (options: GracefulShutdownOptions): GracefulShutdown => (admitting = new GracefulShutdown(server, options));

  beforeEach(async () => {
    served = [];
    admitting = undefined;
    server = http.createServer((req, res) => {
      if (admitting && !admitting.admit(req, res)) return;
      served.push(req.url ?? '');
      if (req.url === '/slow') {
        release = () => res.end('slow done');
        return;
      }
      if (req.url === '/stream') {
        res.writeHead(200, { 'content-type': 'text/event-stream', connection: 'keep-alive' });
        res.write(': hello\n\n');
        return;
      }
      res.end(req.url === '/readyz' ? 'ready' : 'ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });

  afterEach(() => {
    server.closeAllConnections();
    server.close();
  });

  it('answers readiness 503, marks responses Connection: close, lets in-flight requests finish, then stops accepting', async () => {
    const shutdown = start({ drainDelayMs: 100, timeoutMs: 5_000 });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    expect((await request(port, agent, '/readyz')).status).toBe(200);
    const slow = request(port, false, '/slow');
    await waitUntil(() => shutdown.inFlight() === 1);

    const drained = shutdown.drain();
    expect(shutdown.draining).toBe(true);
    const ready = await request(port, false, '/readyz');
    expect(ready.status).toBe(503);
    // The keep-alive connection opened before the drain is still served, and told to close.
    const onKept = await request(port, agent, '/x');
    expect(onKept).toMatchObject({ status: 200, connection: 'close', body: 'ok' });

    await waitUntil(() => !server.listening);
    expect((await request(port, false, '/x')).error).toBe('ECONNREFUSED');
    release();
    expect(await slow).toMatchObject({ status: 200, body: 'slow done', connection: 'close' });
    const result = await drained;
    expect(result.cut).toBe(0);
    expect(result.inFlightAtStart).toBe(1);
    agent.destroy();
  });

  it("leaves the server's request listeners alone; a refused readiness probe never reaches the app", async () => {
    const before = server.listeners('request');
    const shutdown = start({ drainDelayMs: 300, timeoutMs: 1_000 });
    expect(server.listeners('request')).toEqual(before);
    expect((await request(port, false, '/readyz')).body).toBe('ready');
    const drained = shutdown.drain();
    const refused = await request(port, false, '/readyz?full=1');
    expect(refused).toMatchObject({ status: 503, connection: 'close' });
    expect(JSON.parse(refused.body)).toEqual({ status: 'not ready', reason: 'shutting down' });
    expect(await request(port, false, '/x')).toMatchObject({ status: 200, connection: 'close', body: 'ok' });
    expect(served).toEqual(['/readyz', '/x']);
    expect(server.listeners('request')).toEqual(before);
    expect(await drained).toMatchObject({ cut: 0 });
  });

  it('counts an aborted request as done', async () => {
    const shutdown = start({ drainDelayMs: 0, timeoutMs: 5_000 });
    const client = http.get({ host: '127.0.0.1', port, path: '/slow', agent: false });
    client.on('error', () => undefined);
    await waitUntil(() => shutdown.inFlight() === 1);
    client.destroy();
    await waitUntil(() => shutdown.inFlight() === 0);
    expect((await shutdown.drain()).cut).toBe(0);
  });

  it('does not wait for GET event streams once ordinary requests are done', async () => {
    // A bound far past the test's own timeout: a drain that waited for the stream would never settle here.
    const shutdown = start({ drainDelayMs: 0, timeoutMs: 3_600_000 });
    const stream = openStream(port);
    await waitUntil(() => shutdown.inFlight() === 1);
    const result = await shutdown.drain();
    expect(await stream).toBe('closed');
    expect(result.cut).toBe(0);
  });

  it('cuts an ordinary request that outlives the bound, and says so', async () => {
    const shutdown = start({ drainDelayMs: 0, timeoutMs: 300 });
    const slow = request(port, false, '/slow');
    await waitUntil(() => shutdown.inFlight() === 1);
    const result = await shutdown.drain();
    expect(result.cut).toBe(1);
    expect((await slow).error).toBeDefined();
  });
});

function openStream(port: number): Promise<string> {
  return new Promise((resolve) => {
    http.get({ host: '127.0.0.1', port, path: '/stream', agent: false }, (res) => {
      res.on('data', () => undefined);
      res.on('close', () => resolve('closed'));
    });
  });
}

async function waitUntil(fn: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!fn()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
