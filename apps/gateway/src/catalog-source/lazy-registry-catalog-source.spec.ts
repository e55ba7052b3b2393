import { randomBytes } from 'node:crypto';
import { buildTenantDocument, catalogRedisKeys, tenantSettingsSchema, type PublishedCatalog } from '@switchboard/catalog';
import { pollUntil } from '@switchboard/testing';
import { Redis } from 'ioredis';
import pino from 'pino';
import type { TenantCatalog } from './catalog-source';
import { LazyRegistryCatalogSource } from './lazy-registry-catalog-source';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const NS = `lazy-source-${randomBytes(4).toString('hex')}:`;
const keys = catalogRedisKeys(NS);
const SECRETS_KEY = Buffer.from('switchboard-dev-secrets-key-0001');

function doc(id: string, version: string): PublishedCatalog {
  return buildTenantDocument(tenantSettingsSchema.parse({ id, name: id }), {
    tenantId: id,
    version: `${id}-${version}`,
    server: { name: id, version: '1' },
    tools: [],
    resources: [],
    resourceTemplates: [],
    prompts: [],
  });
}

describe('LazyRegistryCatalogSource', () => {
  const admin = new Redis(REDIS_URL, { lazyConnect: true });
  let source: LazyRegistryCatalogSource;
  const heard: TenantCatalog[] = [];

  beforeAll(async () => {
    await admin.connect();
    for (const id of ['a', 'b', 'c']) await admin.set(keys.catalog(id), JSON.stringify(doc(id, 'v1')));
    await admin.set(keys.catalog('wrong'), JSON.stringify(doc('other', 'v1')));
    source = new LazyRegistryCatalogSource({
      redisUrl: REDIS_URL,
      namespace: NS,
      secretsKey: SECRETS_KEY,
      resyncMs: 50,
      logger: pino({ level: 'silent' }),
    });
    source.subscribe((t) => heard.push(t));
    expect(await source.load()).toEqual([]);
  });

  afterAll(async () => {
    await source.close();
    const found = await admin.keys(`${NS}*`);
    if (found.length > 0) await admin.del(...found);
    admin.disconnect();
  });

  it('fetches one tenant from Redis with its document size, and tells unknown from rejected', async () => {
    const a = await source.fetch('a');
    expect(a !== 'unknown' && a !== 'unavailable' && a.snapshot.version).toBe('a-v1');
    expect(source.sizeOf('a')).toBe(Buffer.byteLength(JSON.stringify(doc('a', 'v1'))));
    // Without a registry, Redis is the whole published set.
    expect(await source.fetch('nobody')).toBe('unknown');
    // A document stored under another tenant's key is never served.
    expect(await source.fetch('wrong')).toBe('unavailable');
    expect(source.sizeOf('wrong')).toBeUndefined();
  });

  it('reconciles only resident tenants: a silent change reaches a held tenant, not a forgotten or never-fetched one', async () => {
    await source.fetch('b');
    source.forget('b');
    await admin.set(keys.catalog('b'), JSON.stringify(doc('b', 'v2')));
    await admin.set(keys.catalog('c'), JSON.stringify(doc('c', 'v2')));
    // Written after b and c, so the reconciliation round that sees a's change has seen theirs too.
    await admin.set(keys.catalog('a'), JSON.stringify(doc('a', 'v2')));
    await pollUntil('the silent change of a is picked up', () => heard.some((t) => t.snapshot.version === 'a-v2'));
    await pollUntil('one more round', async () => {
      const rounds = heard.length;
      await admin.set(keys.catalog('a'), JSON.stringify(doc('a', `v${rounds + 3}`)));
      return heard.length > rounds;
    });
    expect(heard.map((t) => t.id).every((id) => id === 'a')).toBe(true);
    expect(source.sizeOf('b')).toBeUndefined();
    expect(source.sizeOf('c')).toBeUndefined();
  });
});
