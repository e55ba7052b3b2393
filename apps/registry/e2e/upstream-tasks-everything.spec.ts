/**
 * Issue 42 item 4 against the official reference server nobody here wrote:
 * `@modelcontextprotocol/server-everything` (stateful Streamable HTTP; its
 * `simulate-research-query` declares `execution.taskSupport: "required"` and runs four one-second
 * stages in the SDK 1.x task store, bound to the upstream session that created the task).
 * Registered through the registry, discovered, published, and driven through two built
 * gateways by the SDK 1.x client on 2025-11-25: the task-augmented call creates the upstream's
 * task, tasks/get polls it on either replica, tasks/result returns the report, tasks/cancel
 * reaches the upstream.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { freePort } from '@switchboard/testing';
import {
  api,
  cleanRedis,
  createDatabase,
  createTenant,
  registerAndDiscover,
  REPO_ROOT,
  startGateway,
  startRegistry,
  testEnv,
  until,
  type Proc,
} from './support/harness';

jest.setTimeout(90_000);

const TOOL = 'simulate-research-query';

describe('server-everything task tools through the registry and two gateways (SDK 1.x, 2025-11-25)', () => {
  const env = testEnv();
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let registry: Proc;
  let gateways: Proc[] = [];
  let everything: ChildProcess | undefined;
  let key: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    const port = await freePort();
    everything = spawn(
      process.execPath,
      [path.join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'), 'streamableHttp'],
      {
        env: { ...process.env, PORT: String(port) },
        stdio: 'ignore',
      },
    );
    const url = `http://localhost:${port}/mcp`;
    await until('server-everything listening', async () => {
      const res = await fetch(url, { method: 'GET' }).catch(() => undefined);
      return res ? true : undefined;
    });
    db = await createDatabase();
    registry = await startRegistry(env, db.url);
    key = await createTenant(registry.url, env.operatorKey, 'acme');
    const server = await registerAndDiscover(registry.url, key, { id: 'everything', name: 'Everything', url, stateful: true });
    expect(server.health).toBe('ok');
    const published = await api(registry.url, key, 'POST', '/v1/publications', { serverId: 'everything', items: [{ name: TOOL }] });
    expect(published.status).toBe(200);
    gateways = [
      await startGateway(env, registry.url, { UPSTREAM_TIMEOUT_MS: '10000' }),
      await startGateway(env, registry.url, { UPSTREAM_TIMEOUT_MS: '10000' }),
    ];
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await Promise.all(gateways.map((g) => g.stop()));
    await registry?.stop();
    everything?.kill('SIGTERM');
    await db?.drop();
    await cleanRedis(env);
  });

  async function client(gateway: Proc): Promise<Client> {
    const c = new Client(
      { name: 'e2e-everything-tasks', version: '1.0.0' },
      { capabilities: { sampling: {}, elicitation: { form: {}, url: {} }, roots: {} } },
    );
    await c.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/t/acme/mcp`)));
    clients.push(c);
    return c;
  }

  it('creates the upstream task, polls it on both replicas, and gets its result', async () => {
    const [onA, onB] = [
      await until('the gateway serving acme', async () => client(gateways[0]!).catch(() => undefined)),
      await client(gateways[1]!),
    ];
    const tool = await until('the published task tool', async () => (await onA.listTools()).tools.find((t) => t.name === TOOL));
    expect(tool.execution).toEqual({ taskSupport: 'required' });

    const created = await onA.request(
      { method: 'tools/call', params: { name: TOOL, arguments: { topic: 'owls' }, task: { ttl: 60_000 } } },
      CreateTaskResultSchema,
    );
    const taskId = created.task.taskId;
    expect(created.task.status).toBe('working');
    expect(await onB.experimental.tasks.getTask(taskId)).toMatchObject({ taskId, status: 'working' });
    const done = await until(
      'the research task to complete',
      async () => {
        const task = await onB.experimental.tasks.getTask(taskId);
        return task.status === 'completed' ? task : undefined;
      },
      20_000,
    );
    expect(done.taskId).toBe(taskId);
    const result = await onA.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    expect((result.content[0] as { text: string }).text).toContain('# Research Report: owls');
  });

  it('forwards tasks/cancel to the upstream through the other replica', async () => {
    const [onA, onB] = [await client(gateways[0]!), await client(gateways[1]!)];
    const created = await onA.request(
      { method: 'tools/call', params: { name: TOOL, arguments: { topic: 'bats' }, task: { ttl: 60_000 } } },
      CreateTaskResultSchema,
    );
    const cancelled = await onB.experimental.tasks.cancelTask(created.task.taskId);
    expect(cancelled).toMatchObject({ taskId: created.task.taskId, status: 'cancelled' });
    // The upstream's own record says cancelled (read back through the first replica).
    expect((await onA.experimental.tasks.getTask(created.task.taskId)).status).toBe('cancelled');
  });

  it("relays the upstream's elicitation of an input_required task to the client on its tasks/result stream", async () => {
    const onA = await client(gateways[0]!);
    const onB = await client(gateways[1]!);
    const asked: string[] = [];
    onB.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { interpretation: 'historical' } };
    });
    const created = await onA.request(
      { method: 'tools/call', params: { name: TOOL, arguments: { topic: 'bridges', ambiguous: true }, task: { ttl: 60_000 } } },
      CreateTaskResultSchema,
    );
    const taskId = created.task.taskId;
    await until(
      'the task to ask for input',
      async () => ((await onB.experimental.tasks.getTask(taskId)).status === 'input_required' ? true : undefined),
      20_000,
    );
    const result = await onB.experimental.tasks.getTaskResult(taskId, CallToolResultSchema, { timeout: 30_000 });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('bridges');
    expect((result.content[0] as { text: string }).text).toContain('Clarification**: historical');
  });

  it('serves a 2026-07-28 client declaring the tasks extension the same upstream task, result inlined by tasks/get', async () => {
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'e2e-modern', version: '1.0.0' },
      'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
    };
    let id = 100;
    const rpc = async (gateway: Proc, method: string, params: Record<string, unknown>, name: string): Promise<Record<string, unknown>> => {
      const res = await fetch(`${gateway.url}/t/acme/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': method,
          'mcp-name': name,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: id++, method, params: { ...params, _meta: meta } }),
      });
      const body = (await res.json()) as { result?: Record<string, unknown>; error?: unknown };
      if (!body.result) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
      return body.result;
    };
    const created = await rpc(gateways[0]!, 'tools/call', { name: TOOL, arguments: { topic: 'otters' } }, TOOL);
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });
    const taskId = created.taskId as string;
    const done = await until(
      'the research task to complete',
      async () => {
        const task = await rpc(gateways[1]!, 'tasks/get', { taskId }, taskId);
        return task.status === 'completed' ? task : undefined;
      },
      20_000,
    );
    expect((done.result as { content: Array<{ text: string }> }).content[0]!.text).toContain('# Research Report: otters');
  });
});
