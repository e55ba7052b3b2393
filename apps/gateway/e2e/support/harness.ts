import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import type { Server } from 'node:http';
import path from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import lightInject, { type InjectOptions as LightInjectOptions } from 'light-my-request';
import { stringify } from 'yaml';
import { loadGatewayConfig } from '../../src/config/config';
import { createGateway } from '../../src/create-gateway';

/** Repository root (tests run from anywhere). */
export const REPO_ROOT = path.resolve(__dirname, '../../../..');
export const FIXTURE_40 = path.join(REPO_ROOT, 'config/fixtures/saas-40-tools.json');

export const MODERN = '2026-07-28';
export const LEGACY = '2025-11-25';
/** What every Streamable-HTTP client sends on a POST. */
export const POST_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' } as const;

export type Json = Record<string, unknown>;

/** One running gateway built from a tenants YAML written to a temp dir. */
export interface TestGateway {
  app: NestFastifyApplication;
  fastify: FastifyInstance;
  /** Set when started with `listen: true`. */
  baseUrl: string;
  mcpUrl(tenant: string): string;
  inject(options: InjectOptions): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export interface StartOptions {
  tenants: unknown[];
  env?: Record<string, string>;
  listen?: boolean;
}

/** Writes `{ tenants }` as YAML to a fresh temp dir, boots the gateway on it (optionally listening on 127.0.0.1:0). */
export async function startGateway(options: StartOptions): Promise<TestGateway> {
  const dir = await mkdtemp(path.join(tmpdir(), 'sb-gw-e2e-'));
  const file = path.join(dir, 'tenants.yaml');
  await writeFile(file, stringify({ tenants: options.tenants }));
  const config = loadGatewayConfig({ TENANTS_FILE: file, LOG_LEVEL: 'silent', ...options.env });
  const app = await createGateway(config);
  const fastify = app.getHttpAdapter().getInstance() as FastifyInstance;
  let baseUrl = '';
  if (options.listen) {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = fastify.server.address();
    if (address === null || typeof address === 'string') throw new Error('gateway did not bind a TCP port');
    baseUrl = `http://127.0.0.1:${address.port}`;
  }
  return {
    app,
    fastify,
    baseUrl,
    mcpUrl: (tenant) => `${baseUrl}/t/${tenant}/mcp`,
    // Through the HTTP server's request listener, as on the wire: MCP paths to the endpoint, the rest to Nest's Fastify.
    inject: (o) => injectServer(fastify.server, o),
    close: async () => {
      await app.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A request dispatched to the server's own `request` listeners (what a socket would reach). */
function injectServer(server: Server, options: InjectOptions): Promise<LightMyRequestResponse> {
  return lightInject((req, res) => server.emit('request', req, res), options as LightInjectOptions);
}

/** The `_meta` envelope a 2026-07-28 client puts on every request. */
export function modernMeta(clientName = 'e2e-client', extra: Json = {}): Json {
  return {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: clientName, version: '1.0.0' },
    ...extra,
  };
}

/** Headers of a well-formed 2026-07-28 POST (`Mcp-Name` when the method carries one). */
export function modernHeaders(method: string, name?: string): Record<string, string> {
  const h: Record<string, string> = { ...POST_HEADERS, 'mcp-protocol-version': MODERN, 'mcp-method': method };
  if (name !== undefined) h['mcp-name'] = name;
  return h;
}

/** A well-formed 2026-07-28 request body. */
export function modernRequest(id: number, method: string, params: Json = {}, clientName?: string): Json {
  const meta = { ...modernMeta(clientName), ...((params._meta as Json | undefined) ?? {}) };
  return { jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } };
}

/** Parses a JSON body, failing with the raw text (never a bare SyntaxError) when it is not JSON. */
export function json(res: { body: string }): Json {
  try {
    return JSON.parse(res.body) as Json;
  } catch {
    throw new Error(`expected a JSON body, got: ${res.body.slice(0, 300)}`);
  }
}

/** The JSON-RPC `error` of a response body (throws when the body carries none). */
export function rpcError(res: { body: string }): { code: number; message: string; data?: Json } {
  const body = json(res);
  const error = body.error as { code: number; message: string; data?: Json } | undefined;
  if (!error) throw new Error(`expected a JSON-RPC error, got: ${res.body.slice(0, 300)}`);
  return error;
}

/** The JSON-RPC `result` of a response body (throws with the error when there is none). */
export function rpcResult(res: { body: string }): Json {
  const body = json(res);
  if (!body.result) throw new Error(`expected a JSON-RPC result, got: ${res.body.slice(0, 500)}`);
  return body.result as Json;
}

/** The `data:` payloads of an SSE body, parsed as JSON. */
export function sseMessages(text: string): Json[] {
  const out: Json[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    const data = block
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).replace(/^ /, ''))
      .join('\n');
    if (data.trim() !== '') out.push(JSON.parse(data) as Json);
  }
  return out;
}

/** Polls `check` until it returns a value (not undefined) or the deadline passes. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 10_000,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** Asserts a body is not a stack trace or a generic 500 page. */
export function expectNoStack(body: string): void {
  expect(body).not.toMatch(/\n\s+at .+\(.+:\d+:\d+\)/);
  expect(body).not.toMatch(/Internal Server Error/);
}

/** POSTs over real HTTP (fetch) and returns status, headers and the whole body text. */
export async function httpPost(
  url: string,
  payload: unknown,
  headers: Record<string, string> = { ...POST_HEADERS },
): Promise<{ status: number; headers: Headers; body: string }> {
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(payload) });
  return { status: res.status, headers: res.headers, body: await res.text() };
}

/** The final JSON-RPC response of a JSON or SSE body. */
export function finalMessage(res: { headers: Headers; body: string }): Json {
  if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const messages = sseMessages(res.body).filter((m) => 'id' in m);
    if (messages.length !== 1)
      throw new Error(`expected exactly one response on the stream, got ${messages.length}: ${res.body.slice(0, 300)}`);
    return messages[0];
  }
  return json(res);
}
