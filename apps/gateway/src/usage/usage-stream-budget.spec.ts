import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pino from 'pino';
import type { TenantCatalog } from '@switchboard/catalog';
import { decodeUsageBatch, usageStreamKey } from '@switchboard/limits';
import type { McpRequestInfo } from '@switchboard/mcp-http';
import { UsageRecorder } from './usage-recorder';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const admin = new Redis(REDIS_URL, { lazyConnect: true, enableOfflineQueue: true });
const namespaces: string[] = [];

beforeAll(async () => {
  await admin.connect();
});

afterAll(async () => {
  for (const ns of namespaces) {
    const keys = await admin.keys(`${ns}*`);
    if (keys.length > 0) await admin.del(...keys);
  }
  await admin.quit();
});

function recorder(options: { streamMaxBytes: number; tenantCaptureBytes: number; maxBatch: number }): {
  usage: UsageRecorder;
  key: string;
} {
  const ns = `spec-usage-${randomBytes(4).toString('hex')}:`;
  namespaces.push(ns);
  const usage = new UsageRecorder({
    redisUrl: REDIS_URL,
    namespace: ns,
    flushMs: 60_000,
    maxBuffered: 100_000,
    streamMaxLen: 100_000,
    logger: pino({ level: 'silent' }),
    ...options,
  });
  for (const id of ['hog', 'calm']) usage.apply({ id, limits: { callLog: { captureResults: true } } } as unknown as TenantCatalog);
  return { usage, key: usageStreamKey(ns) };
}

/** One ended tools/call of `tenant` whose result is `bytes` of text (captured: the tenants opted in). */
function call(usage: UsageRecorder, tenant: string, bytes: number): void {
  const info: McpRequestInfo = {
    tenantId: tenant,
    method: 'tools/call',
    name: 'x',
    called: { serverId: 's', name: 'x' },
    headers: {},
    params: { name: 'x', arguments: {} },
    bytesIn: 10,
  };
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'r'.repeat(bytes) }] } });
  usage.push(
    info,
    { surface: 'generic', toolError: false, started: performance.now() - 1 },
    { errorCode: undefined, body, bytes: body.length },
  );
}

/** Flushes until the batches reached Redis (the recorder's connection comes up on its own; writes wait for it, buffered). */
async function flushed(usage: UsageRecorder, key: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    await usage.flush();
    if ((await admin.exists(key)) === 1 || Date.now() > deadline) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Batch bytes the stream holds (the field the registry drains). */
async function streamBytes(key: string): Promise<{ bytes: number; entries: number }> {
  let bytes = 0;
  const entries = await admin.xrangeBuffer(key, '-', '+');
  for (const [, fields] of entries) bytes += fields[1]!.length;
  return { bytes, entries: entries.length };
}

test('the usage stream keeps at most its byte budget of undrained batches: the oldest go first, in the script that adds', async () => {
  const { usage, key } = recorder({ streamMaxBytes: 64 * 1024, tenantCaptureBytes: 1 << 20, maxBatch: 5 });
  try {
    for (let i = 0; i < 100; i++) call(usage, 'hog', 3_000);
    await flushed(usage, key);
    const held = await streamBytes(key);
    expect(held.bytes).toBeLessThanOrEqual(64 * 1024);
    expect(held.entries).toBeGreaterThan(1);
    // The registry drains (XDEL) from the front; later batches are still counted right.
    const [first] = await admin.xrange(key, '-', '+', 'COUNT', 1);
    await admin.xdel(key, first![0]);
    for (let i = 0; i < 100; i++) call(usage, 'hog', 3_000);
    await usage.flush();
    expect((await streamBytes(key)).bytes).toBeLessThanOrEqual(64 * 1024);
    // The newest records are the ones kept.
    const [[, fields]] = await admin.xrevrangeBuffer(key, '+', '-', 'COUNT', 1);
    expect(decodeUsageBatch(fields[1]!)).toHaveLength(5);
  } finally {
    await usage.close();
  }
});

test("one tenant's captures cannot fill a batch: past its per-batch capture budget its records go without captures, others keep theirs", async () => {
  const { usage, key } = recorder({ streamMaxBytes: 1 << 20, tenantCaptureBytes: 10_000, maxBatch: 20 });
  try {
    for (let i = 0; i < 19; i++) call(usage, 'hog', 3_000);
    call(usage, 'calm', 3_000);
    await flushed(usage, key);
    const [[, fields]] = await admin.xrangeBuffer(key, '-', '+');
    const records = decodeUsageBatch(fields[1]!) as Array<{ tenant: string; result?: unknown }>;
    const hogCaptured = records.filter((r) => r.tenant === 'hog' && typeof r.result === 'object');
    expect(hogCaptured.length).toBeLessThanOrEqual(3);
    expect(
      records.filter((r) => r.tenant === 'hog' && r.result === '[not captured: over USAGE_TENANT_CAPTURE_BYTES]').length,
    ).toBeGreaterThanOrEqual(16);
    expect(records.find((r) => r.tenant === 'calm')?.result).toMatchObject({ content: [{ type: 'text' }] });
    expect(fields[1]!.length).toBeLessThan(20_000);
  } finally {
    await usage.close();
  }
});
