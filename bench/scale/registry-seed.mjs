// Seeds N registry-published tenants for bench/scale's registry mode. Tenant s0 goes through the
// real admin API (create, register the 40-tool upstream, discovery, publish every tool), so its
// rows and snapshot are exactly what the registry writes; s1…s(N-1) are bulk copies of s0's rows
// in SQL (INSERT … SELECT over generate_series / unnest), each with its own id, name, snapshot and
// versions — the snapshot version computed by the catalog's own hashSnapshot, the tenant document
// the registry pushes built by its own publisher when it boots (boot reconciliation).
import { randomBytes } from 'node:crypto';
import { hashSnapshot } from '@switchboard/catalog';
import pg from 'pg';
import { tenantId } from './measure.mjs';
import { setTimeout as sleep } from 'node:timers/promises';

export const tenantName = (i) => `Scale tenant ${i}`;
/** Rows per bulk statement: big enough that round trips do not matter, small enough to keep each statement's memory modest. */
const CHUNK = 5_000;

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

/** `INSERT INTO registry.<table> SELECT <s0's row with tenant_id = t.id> FROM <ids t>` for every row of s0 in `table`. */
async function copyRows(c, table, ids) {
  const cols = await columns(c, table);
  const select = cols.map((col) => (col === 'tenant_id' ? 't.id' : `r.${col}`)).join(', ');
  await c.query(
    `INSERT INTO registry.${table} (${cols.join(', ')}) SELECT ${select} FROM registry.${table} r, unnest($1::text[]) AS t(id) WHERE r.tenant_id = 's0'`,
    [ids],
  );
}

/**
 * s1…s(n-1) as copies of s0, CHUNK tenants per transaction: the tenant row (own id, name and
 * current_version), its server, discovered items and publications, and its snapshot (own id,
 * server name, title and version). Triggers are off while copying (session_replication_role =
 * replica, the bulk-load setting): the publications' outbox trigger would queue every copy for
 * a republish. `verifySample` tenants get an outbox row anyway, so the registry's boot
 * reconciliation recompiles them from their rows and must find the version seeded here.
 */
export async function bulkCopy(databaseUrl, n, verifySample = 20) {
  const c = new pg.Client(databaseUrl);
  await c.connect();
  try {
    const { rows } = await c.query("SELECT snapshot FROM registry.snapshots WHERE tenant_id = 's0'");
    const s0 = rows[0].snapshot;
    const tenantCols = (await columns(c, 'tenants')).filter((col) => !['id', 'name', 'current_version'].includes(col));
    await c.query("SET session_replication_role = 'replica'");
    for (let lo = 1; lo < n; lo += CHUNK) {
      const hi = Math.min(n - 1, lo + CHUNK - 1);
      const ids = [];
      const names = [];
      for (let i = lo; i <= hi; i++) {
        ids.push(tenantId(i));
        names.push(tenantName(i));
      }
      const versions = snapshotVersions(s0, lo, hi);
      await c.query('BEGIN');
      await c.query(
        `INSERT INTO registry.tenants (id, name, current_version, ${tenantCols.join(', ')})
         SELECT t.id, t.name, t.version, ${tenantCols.map((col) => `r.${col}`).join(', ')}
           FROM registry.tenants r, unnest($1::text[], $2::text[], $3::text[]) AS t(id, name, version) WHERE r.id = 's0'`,
        [ids, names, versions],
      );
      for (const table of ['servers', 'discovered_items', 'publications']) await copyRows(c, table, ids);
      await c.query(
        `INSERT INTO registry.snapshots (tenant_id, version, snapshot, created_at)
         SELECT t.id, t.version,
                jsonb_set(jsonb_set(jsonb_set(jsonb_set(r.snapshot, '{tenantId}', to_jsonb(t.id)), '{server,name}', to_jsonb('switchboard-' || t.id)),
                          '{server,title}', to_jsonb(t.name)), '{version}', to_jsonb(t.version)),
                r.created_at
           FROM registry.snapshots r, unnest($1::text[], $2::text[], $3::text[]) AS t(id, name, version) WHERE r.tenant_id = 's0'`,
        [ids, names, versions],
      );
      await c.query('COMMIT');
    }
    await c.query("SET session_replication_role = 'origin'");
    const sample = Array.from({ length: Math.min(verifySample, n - 1) }, (_, k) => tenantId(1 + Math.floor((k * (n - 1)) / verifySample)));
    await c.query(
      "INSERT INTO registry.publish_outbox (tenant_id, requested_at, source) SELECT id, now() - interval '1 hour', 'publications' FROM unnest($1::text[]) AS id ON CONFLICT DO NOTHING",
      [sample],
    );
    await c.query('ANALYZE');
    return { verified: sample.length };
  } finally {
    await c.end();
  }
}
