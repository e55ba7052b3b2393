// SIGTERM drain through the app's own request hook (ShutdownGate): the health probe a load
// balancer polls answers 503 before Nest sees it, MCP calls still on the wire are served with
// `Connection: close`, and the server's request listeners are never touched.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { GracefulShutdown, ShutdownGate } from '@switchboard/mcp-http';
import type { ChainRuntime } from '../src/chain-runtime';
import { createChainReaderApp } from '../src/create-app';
import { testRuntime } from '../src/testing/test-runtime';

function send(
  port: number,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<{ status?: number; connection?: string; body: string }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent: false,
        headers: payload
          ? { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' }
          : {},
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode, connection: res.headers.connection, body: text }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

describe('chain-reader drain', () => {
  let rt: ChainRuntime;
  let app: NestFastifyApplication;
  let port: number;
  const gate = new ShutdownGate();

  beforeAll(async () => {
    rt = testRuntime({});
    app = await createChainReaderApp(rt, gate);
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.getHttpServer().address() as AddressInfo).port;
  });
  afterAll(async () => {
    app.getHttpServer().closeAllConnections();
    await app.close();
    await rt.close({ purge: true });
  });

  it('refuses readiness with 503 and serves other requests with Connection: close while draining', async () => {
    const server = app.getHttpServer();
    const listeners = server.listeners('request');
    const shutdown = new GracefulShutdown(server, { readinessPaths: ['/readyz', '/healthz'], drainDelayMs: 300, timeoutMs: 2_000 });
    gate.attach(shutdown);
    expect((await send(port, 'GET', '/healthz')).status).toBe(200);

    const drained = shutdown.drain();
    const health = await send(port, 'GET', '/healthz');
    expect(health).toMatchObject({ status: 503, connection: 'close' });
    expect(JSON.parse(health.body)).toEqual({ status: 'not ready', reason: 'shutting down' });
    const listed = await send(port, 'POST', '/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
    expect(listed).toMatchObject({ status: 200, connection: 'close' });
    expect(listed.body).toContain('"tools"');

    expect(await drained).toMatchObject({ cut: 0 });
    expect(server.listening).toBe(false);
    expect(server.listeners('request')).toEqual(listeners);
  });
});
