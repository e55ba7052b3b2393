/**
 * Tenant isolation at the upstream edge (issue 18 items 3–8), through the real gateway against
 * SDK-built upstreams that misbehave: response byte limits counted while streaming (tool
 * results over SSE and JSON, resources, prompts, discovery pages; the tenant's own override),
 * a breaker that opens under 8 concurrent failing callers and is per tenant, fair share (the
 * tenant in-flight cap and the bounded per-upstream queue, refused at once), framing headers
 * stripped at send time (raw bytes), and a cross-origin redirect that never gets the credential.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { GatewayRuntime } from '../src/gateway-runtime';
import { discoverUpstream } from '../src/upstream/discover-upstream';
import { LEGACY, POST_HEADERS, finalMessage, startGateway, waitFor, type Json, type TestGateway } from './support/harness';
import { HostileUpstream } from './support/hostile-upstream';

jest.setTimeout(60_000);

const headers = { ...POST_HEADERS, 'mcp-protocol-version': LEGACY };
let nextId = 1;

async function rpc(gw: TestGateway, tenant: string, method: string, params: Json = {}, signal?: AbortSignal): Promise<Json> {
  const res = await fetch(gw.mcpUrl(tenant), {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
    signal,
  });
  const body = await res.text();
  expect(res.status).toBe(200);
  return finalMessage({ headers: res.headers, body });
}

async function callTool(
  gw: TestGateway,
  tenant: string,
  name: string,
  args: Json = {},
  signal?: AbortSignal,
): Promise<{ isError: boolean; text: string }> {
  const message = await rpc(gw, tenant, 'tools/call', { name, arguments: args }, signal);
  const result = message.result as { isError?: boolean; content?: Array<{ text?: string }> } | undefined;
  if (!result) throw new Error(`tools/call ${name} answered a JSON-RPC error: ${JSON.stringify(message.error)}`);
  return { isError: result.isError === true, text: (result.content ?? []).map((c) => c.text ?? '').join('') };
}

/** A TCP stand-in in front of an upstream: forwards bytes (recording what the gateway sent), or answers every request with a 307. */
class Tap {
  readonly raw: Buffer[] = [];
  mode: { kind: 'forward'; port: number } | { kind: 'redirect'; location: string };
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();

  constructor(targetPort: number) {
    this.mode = { kind: 'forward', port: targetPort };
    this.server = net.createServer((client) => {
      this.sockets.add(client);
      client.on('close', () => this.sockets.delete(client));
      const mode = this.mode;
      if (mode.kind === 'redirect') {
        client.once('data', () =>
          client.end(`HTTP/1.1 307 Temporary Redirect\r\nlocation: ${mode.location}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n`),
        );
        return;
      }
      const upstream = net.connect(mode.port, '127.0.0.1');
      client.on('data', (d: Buffer) => this.raw.push(d));
      client.pipe(upstream);
      upstream.pipe(client);
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    });
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as AddressInfo).port;
  }

  /** Switches mode and drops every open connection (kept-alive sockets would keep the old mode). */
  redirect(location: string): void {
    this.mode = { kind: 'redirect', location };
    for (const s of this.sockets) s.destroy();
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

describe('upstream limits, breaker, fair share and headers through the gateway', () => {
  let gw: TestGateway;
  let runtime: GatewayRuntime;
  let sse: HostileUpstream;
  let json: HostileUpstream;
  let bigList: HostileUpstream;
  let locked: HostileUpstream;
  let elsewhere: HostileUpstream;
  let headerTap: Tap;
  let redirectTap: Tap;
  let redirectPort: number;

  beforeAll(async () => {
    [sse, json, bigList, locked, elsewhere] = await Promise.all([
      HostileUpstream.start({ name: 'sse', blobBytes: 100_000 }),
      HostileUpstream.start({ name: 'json', json: true, blobBytes: 100_000 }),
      HostileUpstream.start({ name: 'biglist', json: true, listBytes: 300_000 }),
      HostileUpstream.start({ name: 'locked', requireAuth: 'Bearer right' }),
      HostileUpstream.start({ name: 'elsewhere' }),
    ]);
    const ssePort = Number(new URL(sse.url).port);
    headerTap = new Tap(ssePort);
    const headerPort = await headerTap.listen();
    redirectTap = new Tap(ssePort);
    redirectPort = await redirectTap.listen();
    gw = await startGateway({
      tenants: [
        {
          id: 'small',
          name: 'Small',
          limits: { upstreamResponseBytes: 65_536, maxInflight: 3 },
          catalogs: [
            { upstream: { id: 'h', url: sse.url, prefix: 'h_' } },
            { upstream: { id: 'j', url: json.url, prefix: 'j_' } },
            { upstream: { id: 'l', url: bigList.url, prefix: 'l_' } },
          ],
        },
        { id: 'other', name: 'Other', catalogs: [{ upstream: { id: 'h', url: sse.url, prefix: 'h_' } }] },
        { id: 'brk', name: 'Breaker', catalogs: [{ upstream: { id: 'h', url: sse.url, prefix: 'h_' } }] },
        {
          id: 'good',
          name: 'Good',
          catalogs: [{ upstream: { id: 'a', url: locked.url, prefix: 'a_', headers: { authorization: 'Bearer right' } } }],
        },
        {
          id: 'bad',
          name: 'Bad',
          catalogs: [{ upstream: { id: 'a', url: locked.url, prefix: 'a_', headers: { authorization: 'Bearer wrong' } } }],
        },
        {
          id: 'hdr',
          name: 'Headers',
          catalogs: [
            {
              upstream: {
                id: 'x',
                // `localhost`: another origin than the tap's target, so the Host header is checkably ours.
                url: `http://localhost:${headerPort}/mcp`,
                prefix: 'x_',
                headers: {
                  'x-api-key': 'tenant-key',
                  'transfer-encoding': 'chunked',
                  'content-length': '0',
                  host: 'evil.example',
                  connection: 'upgrade',
                  'mcp-session-id': 'forged',
                },
              },
            },
          ],
        },
        {
          id: 'redir',
          name: 'Redirect',
          catalogs: [
            {
              upstream: {
                id: 'r',
                url: `http://localhost:${redirectPort}/mcp`,
                prefix: 'r_',
                headers: { authorization: 'Bearer redirect-secret', 'x-api-key': 'redirect-key' },
              },
            },
          ],
        },
      ],
      env: {
        UPSTREAM_RESPONSE_MAX_BYTES: '131072',
        UPSTREAM_TIMEOUT_MS: '8000',
        UPSTREAM_BREAKER_FAILURES: '5',
        UPSTREAM_BREAKER_OPEN_MS: '60000',
      },
      listen: true,
    });
    runtime = gw.app.get(GatewayRuntime);
  });

  afterAll(async () => {
    // Upstreams first: their still-open answers (a hung call's stream) end, so the gateway closes at once.
    await Promise.all([
      sse?.stop(),
      json?.stop(),
      bigList?.stop(),
      locked?.stop(),
      elsewhere?.stop(),
      headerTap?.close(),
      redirectTap?.close(),
    ]);
    // The test's own keep-alive sockets to the gateway would hold its close for their idle timeout.
    gw?.fastify.server.closeAllConnections();
    await gw?.close();
  });

  it('cuts a tool result streamed as one SSE event past the tenant limit, naming the upstream and the limit', async () => {
    const out = await callTool(gw, 'small', 'h_big', { bytes: 100_000 });
    expect(out).toEqual({
      isError: true,
      text: 'GW_UPSTREAM_TOO_LARGE: Upstream server h sent a server-sent event larger than 65536 bytes; the call was stopped (limit limits.upstreamResponseBytes = 65536)',
    });
  });

  it("carries the code and its details in the result's _meta", async () => {
    const message = await rpc(gw, 'small', 'tools/call', { name: 'h_big', arguments: { bytes: 100_000 } });
    expect((message.result as Json)._meta).toEqual({
      'switchboard/error': { code: 'GW_UPSTREAM_TOO_LARGE', upstream: 'h', limit: 'upstreamResponseBytes', maxBytes: 65_536 },
    });
  });

  it('cuts a JSON tool result past the tenant limit', async () => {
    const out = await callTool(gw, 'small', 'j_big', { bytes: 100_000 });
    expect(out).toEqual({
      isError: true,
      text: 'GW_UPSTREAM_TOO_LARGE: Upstream server j answered more than 65536 bytes; the call was stopped (limit limits.upstreamResponseBytes = 65536)',
    });
  });

  it('applies the gateway default to a tenant without an override (and the same upstream still answers under it)', async () => {
    const ok = await callTool(gw, 'other', 'h_big', { bytes: 100_000 });
    expect(ok.isError).toBe(false);
    expect(ok.text).toHaveLength(100_000);
    const over = await callTool(gw, 'other', 'h_big', { bytes: 200_000 });
    expect(over).toEqual({
      isError: true,
      text: 'GW_UPSTREAM_TOO_LARGE: Upstream server h sent a server-sent event larger than 131072 bytes; the call was stopped (limit limits.upstreamResponseBytes = 131072)',
    });
  });

  it('answers resources/read and prompts/get past the limit with a JSON-RPC error naming it', async () => {
    const read = await rpc(gw, 'small', 'resources/read', { uri: 'hostile://blob' });
    expect(read.error).toEqual({
      code: -32603,
      message:
        'GW_UPSTREAM_TOO_LARGE: Upstream server h sent a server-sent event larger than 65536 bytes; the call was stopped (limit limits.upstreamResponseBytes = 65536)',
      data: { code: 'GW_UPSTREAM_TOO_LARGE', upstream: 'h', limit: 'upstreamResponseBytes', maxBytes: 65_536 },
    });
    const prompt = await rpc(gw, 'small', 'prompts/get', { name: 'j_bulky' });
    expect(prompt.error).toEqual({
      code: -32603,
      message:
        'GW_UPSTREAM_TOO_LARGE: Upstream server j answered more than 65536 bytes; the call was stopped (limit limits.upstreamResponseBytes = 65536)',
      data: { code: 'GW_UPSTREAM_TOO_LARGE', upstream: 'j', limit: 'upstreamResponseBytes', maxBytes: 65_536 },
    });
    // The other tenant's limit is the default: the same resource is served.
    const fine = await rpc(gw, 'other', 'resources/read', { uri: 'hostile://blob' });
    expect(JSON.stringify(fine.result)).toContain('b'.repeat(1000));
  });

  it('refuses a discovery page past the limit: the upstream is left out, the others are served', async () => {
    const list = await rpc(gw, 'small', 'tools/list');
    const names = (list.result as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['h_shout', 'j_shout']));
    expect(names.filter((n) => n.startsWith('l_'))).toEqual([]);
    await expect(discoverUpstream(bigList.url, {}, 5_000, 131_072)).rejects.toThrow(
      `upstream ${bigList.url} sent a discovery response larger than 131072 bytes (limit UPSTREAM_RESPONSE_MAX_BYTES = 131072); serve the lists in smaller pages`,
    );
  });

  it('reports an answer broken mid-way at once, not at the timeout', async () => {
    const out = await callTool(gw, 'other', 'h_crash');
    expect(out.isError).toBe(true);
    expect(out.text).toMatch(/^GW_UPSTREAM_BROKEN: Upstream server h failed mid-response: the response broke off mid-way/);
  });

  it('opens the breaker when 8 concurrent callers fail, for that tenant only', async () => {
    const failures = await Promise.all(Array.from({ length: 8 }, () => callTool(gw, 'brk', 'h_garbage')));
    for (const f of failures) {
      expect(f.isError).toBe(true);
      expect(f.text).toMatch(
        /^GW_UPSTREAM_PROTOCOL: Upstream server h answered with something that is not MCP JSON-RPC|^GW_CIRCUIT_OPEN: Upstream server h is temporarily unavailable \(circuit open/,
      );
    }
    expect(runtime.upstream.circuitState({ kind: 'upstream', serverId: 'h', url: sse.url, upstreamName: 'shout' }, 'brk')).toBe('open');
    const refused = await callTool(gw, 'brk', 'h_shout', { text: 'x' });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(
      /^GW_CIRCUIT_OPEN: Upstream server h is temporarily unavailable \(circuit open after repeated failures; retrying in \d+ s\)$/,
    );
    // Same upstream URL and id, another tenant: its breaker is its own.
    expect(await callTool(gw, 'other', 'h_shout', { text: 'still here' })).toEqual({ isError: false, text: 'STILL HERE' });
  });

  it("one tenant's bad credential opens only its own breaker", async () => {
    for (let i = 0; i < 5; i++) {
      const out = await callTool(gw, 'bad', 'a_shout', { text: 'x' });
      expect(out.text).toMatch(/^GW_UPSTREAM_PROTOCOL: Upstream server a answered with an HTTP error/);
    }
    expect((await callTool(gw, 'bad', 'a_shout', { text: 'x' })).text).toMatch(/circuit open/);
    expect(await callTool(gw, 'good', 'a_shout', { text: 'fine' })).toEqual({ isError: false, text: 'FINE' });
  });

  it("refuses a call over the tenant's in-flight cap at once, and frees the slots when callers leave", async () => {
    const callers = Array.from({ length: 3 }, () => new AbortController());
    const hanging = callers.map((c) => callTool(gw, 'small', 'h_hang', {}, c.signal).catch(() => undefined));
    await waitFor('3 calls in flight for tenant small', () => (runtime.upstream.inflightOf('small') === 3 ? true : undefined));
    const refused = await callTool(gw, 'small', 'h_shout', { text: 'x' });
    expect(refused).toEqual({
      isError: true,
      text: 'GW_TENANT_INFLIGHT_LIMIT: The gateway refused this call to h: tenant small already has 3 upstream calls in flight in this gateway (limit limits.maxInflight = 3); retry later',
    });
    // Refused at once, not queued: the three calls that hold the slots never end on their own, and still hold them.
    expect(runtime.upstream.inflightOf('small')).toBe(3);
    // Another tenant is not affected by small's cap.
    expect((await callTool(gw, 'other', 'h_shout', { text: 'y' })).text).toBe('Y');
    for (const c of callers) c.abort();
    await Promise.all(hanging);
    await waitFor('tenant small to have no call in flight', () => (runtime.upstream.inflightOf('small') === 0 ? true : undefined), 15_000);
    // (h's breaker may have opened on the hung calls' timeouts; the tenant's slots are free for its other upstream.)
    expect(await callTool(gw, 'small', 'j_shout', { text: 'again' })).toEqual({ isError: false, text: 'AGAIN' });
  });

  it('never sends framing or protocol headers a tenant configured (raw bytes at the upstream)', async () => {
    headerTap.raw.length = 0;
    expect(await callTool(gw, 'hdr', 'x_shout', { text: 'raw' })).toEqual({ isError: false, text: 'RAW' });
    const text = Buffer.concat(headerTap.raw).toString('latin1');
    const heads = text
      .split('\r\n\r\n')
      .filter((block) => /^(POST|GET|DELETE) /.test(block))
      .map((h) => h.toLowerCase());
    expect(heads.length).toBeGreaterThanOrEqual(1);
    for (const head of heads) {
      expect(head).toContain('x-api-key: tenant-key');
      expect(head).not.toContain('transfer-encoding');
      expect(head).not.toMatch(/content-length: 0\r?\n/);
      expect(head).not.toContain('evil.example');
      expect(head).not.toContain('connection: upgrade');
      expect(head).not.toContain('forged');
    }
  });

  it('a redirect to another origin never delivers the credential there', async () => {
    expect((await callTool(gw, 'redir', 'r_shout', { text: 'before' })).text).toBe('BEFORE');
    redirectTap.redirect(elsewhere.url);
    elsewhere.authorizations.length = 0;
    const out = await callTool(gw, 'redir', 'r_shout', { text: 'after' });
    expect(out.isError).toBe(true);
    expect(out.text).toMatch(/^GW_UPSTREAM_[A-Z_]+: Upstream server r /);
    expect(elsewhere.authorizations.filter((a) => a.includes('redirect-secret'))).toEqual([]);
    expect(elsewhere.calls.size).toBe(0);
  });
});

describe('the per-upstream queue is bounded', () => {
  let gw: TestGateway;
  let runtime: GatewayRuntime;
  let up: HostileUpstream;

  beforeAll(async () => {
    up = await HostileUpstream.start({ name: 'q' });
    gw = await startGateway({
      tenants: [{ id: 'q', name: 'Queue', catalogs: [{ upstream: { id: 'h', url: up.url, prefix: 'h_' } }] }],
      env: { UPSTREAM_MAX_CONCURRENCY: '1', UPSTREAM_MAX_QUEUE: '1', UPSTREAM_TIMEOUT_MS: '8000' },
      listen: true,
    });
    runtime = gw.app.get(GatewayRuntime);
  });
  afterAll(async () => {
    await up?.stop();
    gw?.fastify.server.closeAllConnections();
    await gw?.close();
  });

  it('refuses at once when the slot is busy and the queue is full', async () => {
    const callers = [new AbortController(), new AbortController()];
    const pending = callers.map((c) => callTool(gw, 'q', 'h_hang', {}, c.signal).catch(() => undefined));
    await waitFor('one call in flight and one waiting', () =>
      runtime.upstream.inflightOf('q') === 2 && (up.calls.get('hang') ?? 0) === 1 ? true : undefined,
    );
    const refused = await callTool(gw, 'q', 'h_shout', { text: 'x' });
    expect(refused).toEqual({
      isError: true,
      text: 'GW_UPSTREAM_OVERLOADED: The gateway refused this call to h: too many calls to this upstream from tenant q (1 in flight and 1 waiting; limit maxConcurrency = 1); retry later',
    });
    for (const c of callers) c.abort();
    await Promise.all(pending);
    await waitFor('no call in flight', () => (runtime.upstream.inflightOf('q') === 0 ? true : undefined), 15_000);
  });
});
