import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import pino from 'pino';
import type { TenantCatalog } from '@switchboard/catalog';
import { decodeUsageBatch, USAGE_BATCH_FIELD, usageStreamKey } from '@switchboard/limits';
import type { McpRequestInfo } from '@switchboard/mcp-http';
import { CAPTURE_BATCH_BYTES, UsageRecorder } from './usage-recorder';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('UsageRecorder captures', () => {
  const namespace = `test:usage-recorder:${randomUUID()}:`;
  let redis: Redis;
  let recorder: UsageRecorder;

  beforeAll(() => {
    redis = new Redis(REDIS_URL);
    // The per-tenant capture budget is lifted so that the batch byte bound is what seals batches here.
    recorder = new UsageRecorder({
      redisUrl: REDIS_URL,
      namespace,
      flushMs: 3_600_000,
      maxBatch: 100_000,
      maxBuffered: 100_000,
      streamMaxLen: 10_000,
      tenantCaptureBytes: 1 << 30,
      logger: pino({ level: 'silent' }),
    });
    recorder.apply({ id: 'acme', limits: { callLog: { captureArguments: true, captureResults: true } } } as Pick<
      TenantCatalog,
      'id' | 'limits'
    > as TenantCatalog);
  });

  afterAll(async () => {
    await recorder.close();
    await redis.del(usageStreamKey(namespace));
    redis.disconnect();
  });

  const info = (args: Record<string, unknown>): McpRequestInfo => ({
    tenantId: 'acme',
    method: 'tools/call',
    name: 'search',
    called: { serverId: 'crm', name: 'search' },
    headers: {},
    clientIp: '2001:db8::1',
    params: { name: 'search', arguments: args },
  });
  const answer = (text: string) => Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text }] } }));

  /** The stream's entries once `records` records reached it (the recorder's Redis connects lazily: flushes are retried until then). */
  async function entries(records: number): Promise<Buffer[]> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      await recorder.flush();
      const rows = await redis.xrangeBuffer(usageStreamKey(namespace), '-', '+');
      const batches = rows.map(([, fields]) => fields[fields.findIndex((f) => f.toString() === USAGE_BATCH_FIELD) + 1]!);
      if (batches.reduce((n, b) => n + decodeUsageBatch(b).length, 0) >= records || Date.now() > deadline) {
        await redis.del(usageStreamKey(namespace));
        return batches;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it('keeps every stream entry under the batch byte bound, however many large captures arrive', async () => {
    const records = 200;
    for (let i = 0; i < records; i++)
      recorder.push(
        info({ q: 'x'.repeat(10_000) }),
        { surface: 'generic', toolError: false, started: performance.now() - 1 },
        { errorCode: undefined, body: answer('y'.repeat(10_000)), bytes: 100 },
      );
    const batches = await entries(records);
    expect(batches.length).toBeGreaterThan(1);
    expect(Math.max(...batches.map((b) => b.length))).toBeLessThanOrEqual(CAPTURE_BATCH_BYTES + 16 * 1024);
    expect(batches.reduce((n, b) => n + decodeUsageBatch(b).length, 0)).toBe(records);
  });

  it('redacts token-like values and URL queries from captured arguments and results (a connector link included)', async () => {
    const link = 'https://auth.example.com/t/acme/connect/crm?ticket=v1.secret-ticket';
    recorder.push(
      info({ note: 'Bearer abc123.def456-ghi' }),
      { surface: 'generic', toolError: false, started: performance.now() - 1 },
      { errorCode: undefined, body: answer(`Connect your account first: ${link}`), bytes: 100 },
    );
    const [batch] = await entries(1);
    const [record] = decodeUsageBatch(batch!) as Array<{ args: unknown; result: unknown }>;
    expect(record!.args).toEqual({ note: '[redacted bearer credential]' });
    expect(record!.result).toEqual({
      content: [{ type: 'text', text: 'Connect your account first: https://auth.example.com/t/acme/connect/crm?[redacted]' }],
    });
  });
});
