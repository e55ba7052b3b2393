// Seeds N registry-published tenants for bench/scale's registry mode. Tenant s0 goes through the
// real admin API (create, register the 40-tool upstream, discovery, publish every tool), so its
// rows and snapshot are exactly what the registry writes; s1…s(N-1) are bulk copies of s0's rows
// in SQL (INSERT … SELECT over generate_series / unnest), each with its own id, name, snapshot and
// versions — the snapshot version computed by the catalog's own hashSnapshot, the tenant document
// the registry pushes built by its own publisher when it boots (boot reconciliation).
import { randomBytes } from 'node:crypto';
import { buildTenantDocument, hashSnapshot } from '@switchboard/catalog';
import pg from 'pg';
import { tenantId } from './measure.mjs';
import { setTimeout as sleep } from 'node:timers/promises';

export const tenantName = (i) => `Scale tenant ${i}`;
/** Tenants per bulk INSERT … SELECT (one per table): few statements, each transaction's size still modest. */
const BATCH = 25_000;
/** Versions per statement filling the temporary version table. */
const VERSION_CHUNK = 50_000;

/** Secrets and keys one registry + gateway pair shares (random per run). */
export function secrets() {
  return {
    secretsKey: randomBytes(32).toString('base64'),
    internalToken: `internal-${randomBytes(12).toString('hex')}`,
    operatorKey: `operator-${randomBytes(12).toString('hex')}`,
  };
}

async function api(base, key, method, url, body) {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : {} };
}

function expect(res, status, what) {
  if (res.status !== status) throw new Error(`${what}: HTTP ${res.status} ${JSON.stringify(res.body).slice(0, 500)}`);
  return res.body;
}

/**
 * Tenant s0 through the admin API of a running registry: created by the operator key, the
 * upstream registered as server `main`, discovered, and every discovered tool published.
 * Returns the number of tools published.
 */
export async function seedFirstTenant(registryUrl, operatorKey, upstreamUrl) {
  const created = expect(
    await api(registryUrl, operatorKey, 'POST', '/v1/tenants', { id: tenantId(0), name: tenantName(0) }),
    201,
    'create tenant s0',
  );
  const key = created.apiKey;
  expect(
    await api(registryUrl, key, 'POST', '/v1/servers', {
      id: 'main',
      name: 'Scale upstream',
      url: upstreamUrl,
      transport: 'streamable-http',
    }),
    201,
    'register server main',
  );
  const deadline = Date.now() + 60_000;
  let server;
  for (;;) {
    server = expect(await api(registryUrl, key, 'GET', '/v1/servers/main'), 200, 'server main');
    if (server.health !== 'pending') break;
    if (Date.now() > deadline) throw new Error('discovery of server main did not finish in 60 s');
    await sleep(100);
  }
  if (server.health !== 'ok') throw new Error(`discovery of server main: ${JSON.stringify(server).slice(0, 500)}`);
  const items = expect(await api(registryUrl, key, 'GET', '/v1/servers/main/items'), 200, 'items of main');
  const tools = items.items.filter((i) => i.kind === 'tool' && !i.removedAt).map((i) => ({ kind: 'tool', name: i.name }));
  if (tools.length === 0) throw new Error(`server main discovered no tools: ${JSON.stringify(items).slice(0, 500)}`);
  const published = expect(await api(registryUrl, key, 'POST', '/v1/publications', { serverId: 'main', items: tools }), 200, 'publish');
  if (published.redis !== 'ok') throw new Error(`publish of s0: Redis ${published.redis}`);
  return published.tools;
}

function deepFreeze(value) {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const member of Object.values(value)) deepFreeze(member);
    Object.freeze(value);
  }
  return value;
}

/**
 * The snapshot versions of tenants `from`…`to` (inclusive): s0's snapshot with the tenant's id,
 * server name and title, hashed by the catalog's hashSnapshot (its entries, shared and frozen,
 * are digested once). Throws unless s0's own version comes out as the registry wrote it.
 */
function snapshotVersions(s0, from, to) {
  const lists = deepFreeze({ tools: s0.tools, resources: s0.resources, resourceTemplates: s0.resourceTemplates, prompts: s0.prompts });
  const rest = Object.fromEntries(Object.entries(s0).filter(([k]) => k !== 'version' && !(k in lists)));
  const versionOf = (i) =>
    hashSnapshot({
      ...rest,
      ...lists,
      tenantId: tenantId(i),
      server: { ...rest.server, name: `switchboard-${tenantId(i)}`, title: tenantName(i) },
    });
  if (versionOf(0) !== s0.version)
    throw new Error(`hashSnapshot of s0 gave ${versionOf(0)}, the registry wrote ${s0.version}: the seed would be wrong`);
  const out = [];
  for (let i = from; i <= to; i++) out.push(versionOf(i));
  return out;
}

async function columns(c, table) {
  const { rows } = await c.query(
    "SELECT column_name FROM information_schema.columns WHERE table_schema = 'registry' AND table_name = $1 ORDER BY ordinal_position",
    [table],
  );
  return rows.map((r) => r.column_name);
}

/** `s0`'s row(s) of `table` with the tenant column set to `t.id` (`t` = the generate_series of ids). */
async function copySelect(c, table, tenantCol, replace = {}) {
  const cols = await columns(c, table);
  const select = cols.map((col) => (col === tenantCol ? 't.id' : (replace[col] ?? `r.${col}`))).join(', ');
  return { cols: cols.join(', '), select };
}

/**
 * s1…s(n-1) as copies of s0, set-based: the versions (the catalog's hashSnapshot, in JS) go into a
 * temporary table in one statement per VERSION_CHUNK, then each table gets one
 * `INSERT … SELECT … FROM generate_series` per BATCH tenants — the tenant row (own id, name and
 * current_version), its server, discovered items and publications, and its snapshot (own id,
 * server name, title and version). Triggers are off while copying (session_replication_role =
 * replica, the bulk-load setting): the publications' outbox trigger would queue every copy for a
 * republish. `verifySample` tenants get an outbox row anyway, so the registry's boot
 * reconciliation recompiles them from their rows and must find the version seeded here.
 * Returns the seeded versions (index i = tenant s<i>) for the Redis pre-fill.
 */
export async function bulkCopy(databaseUrl, n, verifySample = 20) {
  const c = new pg.Client(databaseUrl);
  await c.connect();
  try {
    const { rows } = await c.query("SELECT snapshot FROM registry.snapshots WHERE tenant_id = 's0'");
    const s0 = rows[0].snapshot;
    const versions = n > 1 ? snapshotVersions(s0, 0, n - 1) : [s0.version];
    await c.query("SET session_replication_role = 'replica'");
    await c.query('SET synchronous_commit = off');
    await c.query('CREATE TEMP TABLE seed_versions (i int PRIMARY KEY, version text NOT NULL)');
    for (let lo = 1; lo < n; lo += VERSION_CHUNK) {
      const hi = Math.min(n - 1, lo + VERSION_CHUNK - 1);
      await c.query('INSERT INTO seed_versions SELECT $1::int + k - 1, v FROM unnest($2::text[]) WITH ORDINALITY AS u(v, k)', [
        lo,
        versions.slice(lo, hi + 1),
      ]);
    }
    const ids =
      "(SELECT g AS i, 's' || g AS id, 'Scale tenant ' || g AS name, v.version FROM generate_series($1::int, $2::int) g JOIN seed_versions v ON v.i = g) t";
    const tenants = await copySelect(c, 'tenants', 'id', { name: 't.name', current_version: 't.version' });
    const snapshot =
      "r.snapshot || jsonb_build_object('tenantId', t.id, 'version', t.version, 'server', (r.snapshot -> 'server') || jsonb_build_object('name', 'switchboard-' || t.id, 'title', t.name))";
    const statements = [
      `INSERT INTO registry.tenants (${tenants.cols}) SELECT ${tenants.select} FROM registry.tenants r, ${ids} WHERE r.id = 's0'`,
    ];
    for (const table of ['servers', 'discovered_items', 'publications']) {
      const t = await copySelect(c, table, 'tenant_id');
      statements.push(
        `INSERT INTO registry.${table} (${t.cols}) SELECT ${t.select} FROM registry.${table} r, ${ids} WHERE r.tenant_id = 's0'`,
      );
    }
    const snap = await copySelect(c, 'snapshots', 'tenant_id', { version: 't.version', snapshot });
    statements.push(
      `INSERT INTO registry.snapshots (${snap.cols}) SELECT ${snap.select} FROM registry.snapshots r, ${ids} WHERE r.tenant_id = 's0'`,
    );
    for (let lo = 1; lo < n; lo += BATCH) {
      const hi = Math.min(n - 1, lo + BATCH - 1);
      await c.query('BEGIN');
      for (const sql of statements) await c.query(sql, [lo, hi]);
      await c.query('COMMIT');
    }
    await c.query("SET session_replication_role = 'origin'");
    const sample = Array.from({ length: Math.min(verifySample, n - 1) }, (_, k) => tenantId(1 + Math.floor((k * (n - 1)) / verifySample)));
    await c.query(
      "INSERT INTO registry.publish_outbox (tenant_id, requested_at, source) SELECT id, now() - interval '1 hour', 'publications' FROM unnest($1::text[]) AS id ON CONFLICT DO NOTHING",
      [sample],
    );
    await c.query('ANALYZE');
    return { verified: sample.length, versions };
  } finally {
    await c.end();
  }
}

/** Documents per pipelined round trip of the Redis pre-fill. */
const PREFILL_CHUNK = 1_000;

/**
 * Writes s1…s(n-1)'s tenant documents into Redis as the registry's publisher would: s0's document
 * (pushed there by the registry during seeding) with the tenant's id, name and snapshot, rebuilt
 * by the catalog's own buildTenantDocument (so key order and document version are the
 * publisher's), SET and SADD in pipelined chunks. The registry's boot then finds every tenant
 * current and pushes none — the run checks that, so a pre-fill differing from what the publisher
 * writes stops the run. Refuses a document with sealed credentials (bound to s0's id).
 */
export async function prefillRedis(redis, versions) {
  const raw = await redis.get('sb:catalog:s0');
  if (!raw) throw new Error('Redis holds no document of s0 after seeding');
  const doc = JSON.parse(raw);
  const { snapshot: s0, credentials, ...settings } = doc;
  delete settings.version; // buildTenantDocument computes it
  if (credentials && Object.keys(credentials).length > 0) throw new Error('s0 has sealed credentials: the pre-fill cannot reproduce them');
  // Every copy lists s0's entries: serialised once, spliced into each document in place of a marker.
  const MARK = '\u0000lists\u0000';
  const lists = ['tools', 'resources', 'resourceTemplates', 'prompts'];
  const listJson = Object.fromEntries(lists.map((k) => [JSON.stringify(`${MARK}${k}`), JSON.stringify(s0[k])]));
  const marked = Object.fromEntries(lists.map((k) => [k, `${MARK}${k}`]));
  const splice = (json) => json.replace(/"\\u0000lists\\u0000\w+"/g, (m) => listJson[m]);
  if (splice(JSON.stringify(buildTenantDocument(settings, { ...s0, ...marked }, credentials))) !== raw)
    throw new Error("the pre-fill does not reproduce the registry's document of s0 byte for byte: it would be wrong");
  for (let lo = 1; lo < versions.length; lo += PREFILL_CHUNK) {
    const hi = Math.min(versions.length - 1, lo + PREFILL_CHUNK - 1);
    const pipe = redis.pipeline();
    const ids = [];
    for (let i = lo; i <= hi; i++) {
      const id = tenantId(i);
      ids.push(id);
      const snapshot = {
        ...s0,
        ...marked,
        tenantId: id,
        version: versions[i],
        server: { ...s0.server, name: `switchboard-${id}`, title: tenantName(i) },
      };
      pipe.set(
        `sb:catalog:${id}`,
        splice(JSON.stringify(buildTenantDocument({ ...settings, id, name: tenantName(i) }, snapshot, credentials))),
      );
    }
    pipe.sadd('sb:tenants', ...ids);
    const res = await pipe.exec();
    const failed = res.find(([err]) => err);
    if (failed) throw failed[0];
  }
}
