/**
 * A flooding upstream's cost to the gateway (issue 41 deliverable 3): once a call's
 * notifications are over NOTIFY_MAX_BYTES_PER_CALL the gateway stops parsing the upstream's
 * notification events (they would be dropped anyway), and UPSTREAM_CALL_STREAM_MAX_BYTES stops
 * a call whose upstream keeps streaming, with an error naming the limit, on both upstream
 * paths: direct requests and the SDK transport. Attack-style, against an SDK-built upstream
 * that writes as fast as the gateway reads. Past its tenant's notification share
 * (UPSTREAM_NOTIFY_BYTES_PER_SEC) the reading pauses, so one tenant's flood slows that tenant only.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { serveStateless } from '@switchboard/testing';
import { directEventCounts } from '@switchboard/upstream-client';
import { z } from 'zod';
import { LEGACY, POST_HEADERS, sseMessages, startGateway, waitFor, type Json, type TestGateway } from './support/harness';

const KiB = 1024;
const MiB = 1024 * KiB;
const STREAM_CAP = 1 * MiB;
const NOTIFY_BUDGET = 64 * KiB;
/** Text of each flooded progress notification. */
const NOTE_BYTES = 4 * KiB;

/** What the upstream wrote: progress notifications sent (and their bytes), and calls whose client hung up before the loop ended. */
const sent = { notes: 0, bytes: 0, cutOff: 0 };

let upstream: Server;
let direct: TestGateway;
let viaSdk: TestGateway;
/** A gateway giving each tenant 64 KiB/s of notification bytes after a 64 KiB burst. */
let paced: TestGateway;
const PACE = 64 * KiB;

/**
 * `flood` sends `count` progress notifications of NOTE_BYTES each, then answers. It writes only
 * as fast as the gateway reads (waits for `drain`), and stops when the gateway hangs up: what it
 * sent is what a gateway that stopped reading let through.
 */
function floodServer(res: ServerResponse): McpServer {
  const server = new McpServer({ name: 'flood', version: '1.0.0' });
  server.registerTool('flood', { description: 'Floods progress.', inputSchema: { count: z.number().int() } }, async ({ count }, extra) => {
    const progressToken = extra._meta?.progressToken ?? 'none';
    const message = 'x'.repeat(NOTE_BYTES);
    for (let i = 1; i <= count; i++) {
      if (res.destroyed) {
        sent.cutOff += 1;
        break;
      }
      await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: i, total: count, message } });
      sent.notes += 1;
      sent.bytes += NOTE_BYTES;
      if (res.writableNeedDrain) await drained(res);
    }
    return { content: [{ type: 'text', text: 'flooded' }] };
  });
  return server;
}

/** Resolves when the response can take more, or is gone. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

async function gateway(url: string, env: Record<string, string>): Promise<TestGateway> {
  return startGateway({
    tenants: ['hog', 'calm'].map((id) => ({ id, name: id, catalogs: [{ upstream: { id: 'f', url, prefix: 'f_' } }] })),
    env: {
      CATALOG_SOURCES: 'file',
      USAGE_ENABLED: 'false',
      UPSTREAM_ALLOW_HTTP_HOSTS: '127.0.0.1',
      UPSTREAM_CALL_STREAM_MAX_BYTES: String(STREAM_CAP),
      NOTIFY_MAX_BYTES_PER_CALL: String(NOTIFY_BUDGET),
      ...env,
    },
    listen: true,
  });
}

beforeAll(async () => {
  upstream = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => void serveStateless(floodServer(res), req, res, JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null')));
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/mcp`;
  direct = await gateway(url, {});
  viaSdk = await gateway(url, { UPSTREAM_DIRECT_REQUESTS: 'false' });
  paced = await gateway(url, {
    UPSTREAM_NOTIFY_BYTES_PER_SEC: String(PACE),
    UPSTREAM_NOTIFY_BURST_BYTES: String(PACE),
    NOTIFY_MAX_BYTES_PER_CALL: String(STREAM_CAP),
  });
}, 60_000);

afterAll(async () => {
  await direct?.close();
  await viaSdk?.close();
  await paced?.close();
  upstream?.closeAllConnections();
  await new Promise<void>((resolve) => upstream?.close(() => resolve()));
});

/** One legacy `f_flood` call asking for progress: the messages of its SSE answer. */
async function flood(gw: TestGateway, count: number, tenant = 'hog'): Promise<Json[]> {
  const init = await fetch(gw.mcpUrl(tenant), {
    method: 'POST',
    headers: { ...POST_HEADERS },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'e2e', version: '1' } },
    }),
  });
  await init.text();
  const res = await fetch(gw.mcpUrl(tenant), {
    method: 'POST',
    headers: { ...POST_HEADERS, 'mcp-protocol-version': LEGACY, 'mcp-session-id': init.headers.get('mcp-session-id') ?? '' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'f_flood', arguments: { count }, _meta: { progressToken: 'p' } },
    }),
  });
  const text = await res.text();
  return res.headers.get('content-type')?.startsWith('text/event-stream') ? sseMessages(text) : [JSON.parse(text) as Json];
}

function reset(): void {
  Object.assign(sent, { notes: 0, bytes: 0, cutOff: 0 });
  Object.assign(directEventCounts, { parsed: 0, skipped: 0, paused: 0 });
}

test('past the notification budget, the upstream notifications of a call are skipped unparsed; the answer still arrives', async () => {
  reset();
  const count = 100;
  const messages = await flood(direct, count);
  const progress = messages.filter((m) => m.method === 'notifications/progress');
  expect(progress.length).toBeGreaterThan(0);
  expect(progress.length * NOTE_BYTES).toBeLessThanOrEqual(NOTIFY_BUDGET);
  expect(JSON.stringify(messages.filter((m) => m.method === 'notifications/message'))).toContain('NOTIFY_MAX_BYTES_PER_CALL');
  expect(messages.at(-1)).toMatchObject({ id: 2, result: { content: [{ type: 'text', text: 'flooded' }] } });
  expect(sent.notes).toBe(count);
  // Parsed: the relayed ones, the one that crossed the budget (turned into the warning), and the answer.
  expect(directEventCounts).toMatchObject({ parsed: progress.length + 2, skipped: count - progress.length - 1 });
}, 60_000);

test.each([
  ['direct requests', () => direct],
  ['the SDK transport', () => viaSdk],
])(
  'an upstream that keeps streaming is cut off at UPSTREAM_CALL_STREAM_MAX_BYTES (%s), with an error naming it',
  async (_path, gw) => {
    reset();
    // 80 MiB if nothing stopped it: far past the cap and whatever the loopback sockets buffer.
    const count = 20_000;
    const messages = await flood(gw(), count);
    const answer = messages.at(-1) as Json;
    expect(answer).toMatchObject({ id: 2, result: { isError: true } });
    expect(JSON.stringify(answer)).toContain(
      `streamed more than ${STREAM_CAP} bytes of events for one call; the call was stopped (limit UPSTREAM_CALL_STREAM_MAX_BYTES = ${STREAM_CAP})`,
    );
    expect((answer.result as Json)._meta).toEqual({
      'switchboard/error': { code: 'GW_UPSTREAM_TOO_LARGE', upstream: 'f', limit: 'UPSTREAM_CALL_STREAM_MAX_BYTES', maxBytes: STREAM_CAP },
    });
    // The upstream's loop ended because the gateway hung up, far short of its count.
    await waitFor('the upstream to see the gateway hang up', () => (sent.cutOff === 1 ? true : undefined));
    expect(sent.notes).toBeLessThan(count / 2);
    // The gateway looked at no more events than the cap holds.
    expect(directEventCounts.parsed + directEventCounts.skipped).toBeLessThanOrEqual(STREAM_CAP / NOTE_BYTES + 1);
  },
  60_000,
);

test('a tenant past its notification share is slowed, not refused; another tenant is served meanwhile', async () => {
  reset();
  // 400 KiB of notifications against a 64 KiB burst at 64 KiB/s: about five seconds of pauses.
  let hogDone = false;
  const hog = flood(paced, 100).then((m) => ((hogDone = true), m));
  await waitFor('the hog call to be paused', () => (directEventCounts.paused > 0 ? true : undefined));
  const calm = await flood(paced, 4, 'calm');
  expect(calm.at(-1)).toMatchObject({ id: 2, result: { content: [{ type: 'text', text: 'flooded' }] } });
  expect(calm.filter((m) => m.method === 'notifications/progress')).toHaveLength(4);
  // The calm tenant's call went through while the hog's was still being paced.
  expect(hogDone).toBe(false);
  const messages = await hog;
  expect(messages.filter((m) => m.method === 'notifications/progress')).toHaveLength(100);
  expect(messages.at(-1)).toMatchObject({ id: 2, result: { content: [{ type: 'text', text: 'flooded' }] } });
}, 60_000);
