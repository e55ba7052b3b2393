// Chaos (issue 12): SIGTERM to a gateway process under load (keep-alive clients, slow in-flight
// tool calls). Readiness goes 503 first, every response from then on carries `Connection: close`,
// the listener stops accepting, in-flight calls finish, the process exits 0 — and no request that
// reached the gateway is reset or refused with a 503. The clients model a load balancer: once
// readiness said 503 they open no new connection to this instance, but keep using the keep-alive
// connections they hold until the gateway closes them (`Connection: close`), as pooled clients do.
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';

jest.setTimeout(90_000);

const REPO_ROOT = path.resolve(__dirname, '../../..');

type Outcome = {
  kind: 'ok' | 'status' | 'reset' | 'refused';
  status?: number;
  code?: string;
  close?: boolean;
  sentAt: number;
  doneAt?: number;
  slow?: boolean;
};

function post(agent: http.Agent, port: number, body: unknown): Promise<Outcome> {
  const payload = JSON.stringify(body);
  const sentAt = Date.now();
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/t/demo/mcp',
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
          'content-length': Buffer.byteLength(payload),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () =>
          resolve({
            kind: res.statusCode === 200 ? 'ok' : 'status',
            status: res.statusCode,
            close: res.headers.connection === 'close',
            sentAt,
          }),
        );
        res.on('error', (err: NodeJS.ErrnoException) => resolve({ kind: 'reset', code: err.code ?? err.message, sentAt }));
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) =>
      resolve({ kind: err.code === 'ECONNREFUSED' ? 'refused' : 'reset', code: err.code ?? err.message, sentAt }),
    );
    req.end(payload);
  });
}

function startGateway(): Promise<{ child: ChildProcess; port: number; output: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(REPO_ROOT, 'apps/gateway/dist/main.js')], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '', GATEWAY_PORT: '0', LOG_LEVEL: 'info', SHUTDOWN_DRAIN_DELAY_MS: '700', CATALOG_SOURCES: 'file' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`gateway not ready:\n${out}`)), 60_000);
    const onData = (c: Buffer) => {
      out += c.toString();
      const m = /gateway listening on http:\/\/[\d.]+:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, port: Number(m[1]), output: () => out });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`gateway exited with ${code}:\n${out}`));
    });
  });
}

describe('chaos: SIGTERM to a gateway under load', () => {
  it('drains: readiness 503 first, Connection: close, in-flight calls finish, zero resets, exit 0', async () => {
    const gw = await startGateway();
    const agents: http.Agent[] = [];
    const outcomes: Outcome[] = [];
    let signalledAt = 0;
    let routing = true;
    // 6 clients listing tools back to back, 3 with a ~1.2 s tool call in flight at any time.
    const worker = async (slow: boolean) => {
      // One keep-alive connection per client, reused for every request while it stays open.
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      agents.push(agent);
      for (let i = 0; i < 100_000; i++) {
        const o = await post(
          agent,
          gw.port,
          slow
            ? { jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'count_down', arguments: { from: 4, stepMs: 300 } } }
            : { jsonrpc: '2.0', id: i, method: 'tools/list' },
        );
        outcomes.push({ ...o, slow, doneAt: Date.now() });
        // Connection closed by the gateway and the balancer no longer routes here: this client moves on.
        if (o.kind !== 'ok' || (!routing && o.close) || (signalledAt && Date.now() - signalledAt > 20_000)) return;
      }
    };
    const workers = [false, false, false, false, false, false, true, true, true].map((slow) => worker(slow));
    await poll(
      () => outcomes.filter((o) => o.kind === 'ok').length > 60 && outcomes.some((o) => o.kind === 'ok' && o.status === 200),
      30_000,
    );

    const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
      gw.child.once('exit', (code) => resolve({ code, at: Date.now() })),
    );
    signalledAt = Date.now();
    gw.child.kill('SIGTERM');
    // Readiness answers 503 while the listener still accepts (the drain delay).
    let readiness: number | undefined;
    for (let i = 0; i < 200 && readiness === undefined; i++) {
      const status = await new Promise<number | undefined>((resolve) => {
        http
          .get({ host: '127.0.0.1', port: gw.port, path: '/readyz', agent: false }, (res) => {
            res.resume();
            resolve(res.statusCode);
          })
          .on('error', () => resolve(-1));
      });
      if (status === 503 || status === -1) readiness = status;
    }
    routing = false;
    await Promise.all(workers);
    const { code, at } = await exited;
    for (const a of agents) a.destroy();

    const after = outcomes.filter((o) => o.sentAt >= signalledAt);
    const resets = outcomes.filter((o) => o.kind === 'reset');
    const bad = outcomes.filter((o) => o.kind === 'status');
    // Tool calls that were in flight when the signal came, and completed.
    const slowDone = outcomes.filter((o) => o.slow && o.kind === 'ok' && o.sentAt < signalledAt && (o.doneAt ?? 0) > signalledAt).length;
    console.log(
      `SIGTERM under load: ${outcomes.length} requests (${after.length} sent after the signal), ${resets.length} reset, ${bad.length} non-200, ` +
        `${slowDone} tool calls in flight at the signal completed; readiness 503; exit ${code} ${at - signalledAt} ms after SIGTERM`,
    );
    expect(readiness).toBe(503);
    expect(resets).toEqual([]);
    expect(bad).toEqual([]);
    expect(after.some((o) => o.kind === 'ok' && o.close)).toBe(true);
    expect(slowDone).toBeGreaterThan(0);
    expect(code).toBe(0);
    expect(gw.output()).toMatch(/drained/);
  });
});

async function poll(fn: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!fn()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for load');
    await new Promise((r) => setTimeout(r, 20));
  }
}
