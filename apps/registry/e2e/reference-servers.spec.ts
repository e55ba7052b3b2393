// Interop with official MCP servers nobody here wrote (issue #42 item 6): the reference server
// `@modelcontextprotocol/server-everything` and the TypeScript SDK's own example server are each
// started on a loopback port, registered through the registry (stateful), discovered, every
// discovered item published, then every feature they offer is driven through a built gateway
// with the SDK 1.x client (2025-11-25) and the SDK v2 client (2026-07-28). Each server × feature
// × era is a row; the run renders docs/compatibility.md and the committed file must equal it
// (UPDATE_COMPATIBILITY=1 rewrites it), so the suite stays deterministic.
//
// Rows that fail today are listed in KNOWN_GAPS with the reason (an open change of #42, or a
// limit the doc explains): a known gap must fail (the test fails when it starts passing, so its
// line gets deleted), every other row must pass.
import { readFileSync, writeFileSync } from 'node:fs';

import { StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';

import { StreamableHTTPClientTransport as SdkTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { renderCompatibility, type FeatureRow, type Outcome } from './support/compatibility-doc';
import { startEverythingServer, startSdkExampleServer, type ReferenceServer } from '@switchboard/testing';
import {
  api,
  cleanRedis,
  createDatabase,
  createTenant,
  registerAndDiscover,
  startGateway,
  startRegistry,
  testEnv,
  until,
  type Proc,
} from './support/harness';
import { EVERYTHING_ROWS_A } from './support/reference-everything-rows';
import { EVERYTHING_ROWS_B } from './support/reference-everything-rows-b';
import {
  DOC_PATH,
  type Direct,
  type Driver,
  GENERATOR,
  KNOWN_GAPS,
  NOT_APPLICABLE,
  NOT_EXERCISED,
  type RowSpec,
  legacyDriver,
  modernDriver,
  observed,
  sorted,
} from './support/reference-drivers';
import { EXAMPLE_ROWS } from './support/reference-example-rows';

jest.setTimeout(60_000);

const EVERYTHING_ROWS: RowSpec[] = [...EVERYTHING_ROWS_A, ...EVERYTHING_ROWS_B];

interface ServerSpec {
  /** Server id in the registry and tenant id (one tenant per server, so names never collide). */
  id: string;
  title: string;
  setup: string;
  start(): Promise<ReferenceServer>;
  /** URI prefixes the tenant publishes as the server's "dynamic resources" (resources it creates while running). */
  dynamicResources?: string[];
  rows: RowSpec[];
}

const SERVERS: ServerSpec[] = [
  {
    id: 'everything',
    title: 'Everything reference server',
    setup:
      'Started with its Streamable HTTP transport (`dist/index.js streamableHttp`), registered with `stateful: true`. It registers some tools only for a client that declares a capability (sampling, elicitation, URL elicitation, roots, client-side tasks), so the reference for the lists is what the same client sees connected directly. The tenant publishes `demo://resource/session/` as the server’s dynamic resources (the resources it creates while running).',
    start: startEverythingServer,
    dynamicResources: ['demo://resource/session/'],
    rows: EVERYTHING_ROWS,
  },
  {
    id: 'sdkexample',
    title: 'TypeScript SDK example server',
    setup:
      'The SDK’s own `examples/server/simpleStreamableHttp.js`, stateful, registered with `stateful: true`. Its tools mostly declare no hint annotations; the tenant publishes them with `readOnlyHint`/`destructiveHint`/`openWorldHint` overrides where missing (publishing requires them).',
    start: startSdkExampleServer,
    rows: EXAMPLE_ROWS,
  },
];

describe('official reference servers through registry and gateway', () => {
  const env = testEnv();
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let registry: Proc;
  let gateway: Proc;
  const outcomes = new Map<string, Outcome>();
  const started = new Map<string, ReferenceServer>();

  beforeAll(async () => {
    db = await createDatabase();
    registry = await startRegistry(env, db.url);
    gateway = await startGateway(env, registry.url, { UPSTREAM_TIMEOUT_MS: '20000' });
  });

  afterAll(async () => {
    await gateway?.stop();
    await registry?.stop();
    for (const server of started.values()) await server.stop();
    await db?.drop();
    await cleanRedis(env);
  });

  describe.each(SERVERS.map((s) => [s.id, s] as const))('%s', (serverId, spec) => {
    let direct: Direct;
    let mcpUrl: string;

    beforeAll(async () => {
      const upstream = await spec.start();
      started.set(serverId, upstream);
      const key = await createTenant(registry.url, env.operatorKey, serverId);

      // The oracle: what the same client sees connected to the server without us in between.
      const { client, driver } = legacyDriver(upstream.url);
      await client.connect(new SdkTransport(new URL(upstream.url)));
      direct = {
        instructions: driver.instructions(),
        tools: await driver.listTools(),
        prompts: sorted(await driver.listPrompts()),
        resources: sorted(await driver.listResources()),
        templates: sorted(await driver.listTemplates()),
      };
      await client.close();

      const server = await registerAndDiscover(registry.url, key, {
        id: serverId,
        name: spec.title,
        url: upstream.url,
        stateful: true,
        timeoutMs: 20_000,
      });
      if (server.health !== 'ok') throw new Error(`discovery of ${serverId}: ${JSON.stringify(server)}`);
      const items = (await api(registry.url, key, 'GET', `/v1/servers/${serverId}/items`)).body.items as Array<{
        kind: string;
        name: string;
        missingHints?: string[];
      }>;
      // A hint the server does not declare gets the conservative value for a tool nobody here reviewed.
      const CONSERVATIVE: Record<string, boolean> = { readOnlyHint: false, destructiveHint: true, openWorldHint: true };
      const published = await api(registry.url, key, 'POST', '/v1/publications', {
        serverId,
        items: items.map((i) => ({
          kind: i.kind,
          name: i.name,
          ...(i.missingHints?.length
            ? { overrides: { annotations: Object.fromEntries(i.missingHints.map((h) => [h, CONSERVATIVE[h]])) } }
            : {}),
        })),
      });
      if (published.status !== 200)
        throw new Error(`publishing every item of ${serverId}: ${published.status} ${JSON.stringify(published.body)}`);
      if (spec.dynamicResources) {
        const dynamic = await api(registry.url, key, 'PATCH', `/v1/servers/${serverId}`, {
          dynamicResources: { uriPrefixes: spec.dynamicResources },
        });
        if (dynamic.status !== 200)
          throw new Error(`publishing ${serverId}'s dynamic resources: ${dynamic.status} ${JSON.stringify(dynamic.body)}`);
      }
      mcpUrl = `${gateway.url}/t/${serverId}/mcp`;
      await until(`the gateway serving ${serverId}'s publication`, async () => {
        const res = await fetch(mcpUrl, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': '2025-11-25',
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        });
        return res.status === 200 && ((await res.json()) as { result?: { tools?: unknown[] } }).result?.tools?.length;
      });
    });

    describe.each(['legacy', 'modern'] as const)('%s era', (era) => {
      let driver: Driver;

      beforeAll(async () => {
        if (era === 'legacy') {
          const made = legacyDriver(mcpUrl);
          await made.client.connect(new SdkTransport(new URL(mcpUrl)));
          driver = made.driver;
        } else {
          const made = modernDriver(mcpUrl);
          await made.client.connect(new V2Transport(new URL(mcpUrl)));
          driver = made.driver;
        }
      });

      afterAll(async () => {
        await driver?.close();
      });

      it.each(spec.rows.map((r) => [r.id, r] as const))('%s', async (id, row) => {
        const key = `${serverId}/${id}/${era}`;
        const na = NOT_APPLICABLE[key];
        if (na !== undefined) {
          outcomes.set(key, { status: 'n/a', reason: na });
          return;
        }
        let outcome: Outcome;
        try {
          const note = await row.run(driver, direct);
          outcome = { status: 'pass', ...(note ? { note } : {}) };
        } catch (err) {
          outcome = { status: 'fail', observed: observed(err), reason: KNOWN_GAPS[key] ?? 'not a known gap' };
        }
        outcomes.set(key, outcome);
        const gap = KNOWN_GAPS[key];
        if (gap !== undefined && outcome.status === 'pass') {
          throw new Error(
            `${key} passes now: delete its line from KNOWN_GAPS and regenerate docs/compatibility.md (UPDATE_COMPATIBILITY=1)`,
          );
        }
        if (gap === undefined && outcome.status === 'fail') throw new Error(`${key} fails: ${outcome.observed}`);
      });
    });
  });

  it('docs/compatibility.md is the table this run produced', () => {
    const notRun: Outcome = { status: 'fail', observed: 'not run', reason: 'the row did not run' };
    const sections = SERVERS.map((spec) => {
      const upstream = started.get(spec.id);
      return {
        title: spec.title,
        package: upstream?.package ?? 'not started',
        version: upstream?.version ?? '',
        setup: spec.setup,
        rows: spec.rows.map((r): FeatureRow => ({
          id: r.id,
          feature: r.feature,
          checks: r.checks,
          outcomes: {
            legacy: outcomes.get(`${spec.id}/${r.id}/legacy`) ?? notRun,
            modern: outcomes.get(`${spec.id}/${r.id}/modern`) ?? notRun,
          },
        })),
      };
    });
    const doc = renderCompatibility(sections, GENERATOR, NOT_EXERCISED);
    if (process.env.UPDATE_COMPATIBILITY === '1') {
      writeFileSync(DOC_PATH, doc);
      return;
    }
    let committed = '';
    try {
      committed = readFileSync(DOC_PATH, 'utf8');
    } catch {
      // Missing: the comparison below fails with the instruction.
    }
    if (committed !== doc)
      throw new Error(`docs/compatibility.md is out of date; regenerate it with UPDATE_COMPATIBILITY=1. This run produced:\n${doc}`);
  });
});
