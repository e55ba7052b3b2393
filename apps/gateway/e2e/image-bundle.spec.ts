import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '@switchboard/testing';

/**
 * The images' runtime trees (ops/images/bundle.mjs) carry every module their bundle loads, without
 * Docker: each app's tree passes ops/images/check-bundle.mjs, the check refuses a tree that lacks
 * an installed package or loads one by a computed name (how the OpenTelemetry SDK once went missing
 * from every image, issue #50), and the development gateway's tree, run OUTSIDE the repository
 * (nothing to fall back on in its node_modules) with tracing on, exports its spans over OTLP/HTTP
 * protobuf, compose's protocol, to a receiver here.
 */
const REPO_ROOT = path.resolve(__dirname, '../../..');
const BUNDLE = path.join(REPO_ROOT, 'ops/images/bundle.mjs');
const CHECK = path.join(REPO_ROOT, 'ops/images/check-bundle.mjs');

jest.setTimeout(240_000);

const work = mkdtempSync(path.join(tmpdir(), 'sb-image-bundle-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function bundle(app: string, out: string, withFixtures = false): { status: number | null; stdout: string; stderr: string } {
  const args = withFixtures ? [BUNDLE, '--with-fixtures', app, out] : [BUNDLE, app, out];
  const r = spawnSync(process.execPath, args, { cwd: REPO_ROOT, encoding: 'utf8', timeout: 180_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('image bundles (ops/images/bundle.mjs + check-bundle.mjs)', () => {
  it.each(['apps/auth', 'apps/registry', 'apps/chain-reader'])('%s: the tree holds every module its bundle loads', (app) => {
    const r = bundle(app, path.join(work, path.basename(app)));
    // esbuild's own warnings may stand on stderr (chain-reader's devnet require.resolve); a missing module fails the status.
    expect({ status: r.status, missing: /lacks what the bundle loads/.test(r.stderr) }).toEqual({ status: 0, missing: false });
    expect(JSON.parse(r.stdout)).toMatchObject({ app, loadsChecked: expect.any(Number) });
  });

  it('refuses a tree whose bundle loads an installed package it lacks, or a module by a computed name in our code', () => {
    const out = path.join(work, 'broken');
    mkdirSync(path.join(out, 'apps/gateway/dist'), { recursive: true });
    // What the bundle of the pre-#50 telemetry looked like: a require(id) esbuild cannot follow,
    // and (had it been a literal) a package left external without being copied.
    writeFileSync(
      path.join(out, 'apps/gateway/dist/main.js'),
      [
        '// libs/telemetry/dist/start-telemetry.js',
        'function load(id) { return require(id); }',
        'const sdk = () => require("@opentelemetry/sdk-node");',
        '// node_modules/@nestjs/core/helpers/optional-require.js',
        'function optionalRequire(name) { return require(name); }',
        'try { require("@nestjs/microservices"); } catch {}',
        'require("node:fs"); require("fs");',
        '',
      ].join('\n'),
    );
    const r = spawnSync(process.execPath, [CHECK, out, 'apps/gateway'], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(1);
    const problems = r.stderr.trim().split('\n');
    expect(problems).toEqual([
      expect.stringMatching(
        /^check-bundle: require\('@opentelemetry\/sdk-node'\) in libs\/telemetry\/dist\/start-telemetry\.js is installed in the repository but not in the image/,
      ),
      expect.stringMatching(
        /^check-bundle: require of a computed name in libs\/telemetry\/dist\/start-telemetry\.js: the bundler cannot follow it/,
      ),
    ]);
    // A package installed nowhere fails in the image as it does under `npm start` (NestJS's optional ones), and is reported as such.
    expect(JSON.parse(r.stdout)).toMatchObject({ missing: 2, notInstalledAnywhere: ['@nestjs/microservices'] });
  });

  describe('the development gateway tree, run outside the repository with tracing on', () => {
    const traceId = randomBytes(16).toString('hex');
    const exports: Buffer[] = [];
    let receiver: Server;
    let gateway: ChildProcess;
    let output = '';
    let port = 0;

    beforeAll(async () => {
      const tree = path.join(work, 'gateway-dev');
      const r = bundle('apps/gateway', tree, true);
      expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
      expect(JSON.parse(r.stdout)).toMatchObject({ fixtures: true });
      // The Dockerfile copies config/ beside the bundle.
      cpSync(path.join(REPO_ROOT, 'config'), path.join(tree, 'config'), { recursive: true });
      receiver = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          if (req.url === '/v1/traces') exports.push(Buffer.concat(chunks));
          res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
        });
      });
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      port = await freePort();
      gateway = spawn(process.execPath, ['apps/gateway/dist/main.js'], {
        cwd: tree,
        env: {
          PATH: process.env.PATH ?? '',
          NODE_ENV: 'production',
          GATEWAY_PORT: String(port),
          GATEWAY_HOST: '127.0.0.1',
          OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`,
          OTEL_METRICS_EXPORTER: 'none',
          OTEL_BSP_SCHEDULE_DELAY: '200',
          GATEWAY_TRACE_CLIENT_CONTEXT: 'trust',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      gateway.stdout?.on('data', (c: Buffer) => (output += c.toString()));
      gateway.stderr?.on('data', (c: Buffer) => (output += c.toString()));
      const deadline = Date.now() + 60_000;
      for (;;) {
        if (gateway.exitCode !== null) throw new Error(`the bundled gateway exited (${gateway.exitCode}):\n${output.slice(-4000)}`);
        const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then(
          (res) => res.ok,
          () => false,
        );
        if (ok) break;
        if (Date.now() > deadline) throw new Error(`the bundled gateway did not become ready:\n${output.slice(-4000)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    });

    afterAll(async () => {
      if (gateway && gateway.exitCode === null) {
        const exited = new Promise((resolve) => gateway.once('exit', resolve));
        gateway.kill('SIGTERM');
        await exited;
      }
      receiver?.closeAllConnections();
      await new Promise((resolve) => receiver?.close(resolve));
    });

    it("answers tools/list and exports the request's spans, in the client's trace, over OTLP/HTTP protobuf", async () => {
      const res = await fetch(`http://127.0.0.1:${port}/t/demo/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
          traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01`,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { result: { tools: unknown[] } }).result.tools.length).toBeGreaterThan(5);
      // Protobuf carries the trace id as its 16 raw bytes and the service name as UTF-8.
      const id = Buffer.from(traceId, 'hex');
      const deadline = Date.now() + 30_000;
      while (!exports.some((b) => b.includes(id) && b.includes('gateway'))) {
        if (Date.now() > deadline)
          throw new Error(`no span of trace ${traceId} reached the receiver (${exports.length} exports):\n${output.slice(-4000)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(output).not.toMatch(/Cannot find module/);
    });
  });
});
