import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { GracefulShutdown } from './graceful-shutdown';
import { ShutdownGate } from './shutdown-gate';

function get(port: number, path: string): Promise<{ status?: number; connection?: string; body: string; error?: string }> {
  return new Promise((resolve) => {
    http
      .get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode, connection: res.headers.connection, body }));
      })
      .on('error', (err: NodeJS.ErrnoException) => resolve({ body: '', error: err.code }));
  });
}

describe('ShutdownGate', () => {
  let app: FastifyInstance;
  let port: number;
  let gate: ShutdownGate;
  let served: string[];
  let release: () => void;

  beforeEach(async () => {
    served = [];
    release = () => undefined;
    gate = new ShutdownGate();
    app = Fastify();
    gate.install(app);
    app.get('/readyz', async () => {
      served.push('/readyz');
      return { status: 'ready' };
    });
    app.get('/slow', (_req, reply) => {
      served.push('/slow');
      release = () => void reply.send('slow done');
    });
    app.get('/x', async () => {
      served.push('/x');
      return 'ok';
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as AddressInfo).port;
  });

  afterEach(async () => {
    app.server.closeAllConnections();
    await app.close();
  });

  it('lets every request through until a shutdown is attached', async () => {
    expect(await get(port, '/readyz')).toMatchObject({ status: 200, body: '{"status":"ready"}' });
    expect(served).toEqual(['/readyz']);
  });

  it('counts requests through the hook and refuses readiness while draining, without touching the server listeners', async () => {
    const before = app.server.listeners('request');
    const shutdown = new GracefulShutdown(app.server, { drainDelayMs: 200, timeoutMs: 5_000 });
    gate.attach(shutdown);
    expect(app.server.listeners('request')).toEqual(before);
    const slow = get(port, '/slow');
    await waitUntil(() => shutdown.inFlight() === 1);

    const drained = shutdown.drain();
    const ready = await get(port, '/readyz');
    expect(ready).toMatchObject({ status: 503, connection: 'close' });
    expect(JSON.parse(ready.body)).toEqual({ status: 'not ready', reason: 'shutting down' });
    expect(await get(port, '/x')).toMatchObject({ status: 200, connection: 'close', body: 'ok' });
    // The refused probe never reached its route.
    expect(served).toEqual(['/slow', '/x']);

    await waitUntil(() => !app.server.listening);
    release();
    expect(await slow).toMatchObject({ status: 200, body: 'slow done', connection: 'close' });
    expect(await drained).toMatchObject({ cut: 0, inFlightAtStart: 1 });
    expect(shutdown.inFlight()).toBe(0);
  });
});

async function waitUntil(fn: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!fn()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
