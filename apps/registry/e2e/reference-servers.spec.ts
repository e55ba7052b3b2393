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
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as SdkTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { renderCompatibility, type Era, type FeatureRow, type Outcome } from './support/compatibility-doc';
import { startEverythingServer, startSdkExampleServer, type ReferenceServer } from '@switchboard/testing';
import { api, cleanRedis, createDatabase, createTenant, registerAndDiscover, REPO_ROOT, startGateway, startRegistry, testEnv, until, type Proc } from './support/harness';

jest.setTimeout(60_000);

const GENERATOR = 'apps/registry/e2e/reference-servers.spec.ts';
const DOC_PATH = path.join(REPO_ROOT, 'docs/compatibility.md');

const MODERN_LOGGING =
  'the server logs outside any request; 2026-07-28 carries log messages only on the stream of the request they belong to, so such messages have no way to a 2026-07-28 client (a protocol limit, not covered by #42)';
const INSTRUCTIONS =
  "by design: a tenant's surface merges several servers, so the gateway serves the tenant's own instructions (set in the registry), never one upstream's (not covered by #42)";
const MODERN_LISTEN = 'the gateway does not serve subscriptions/listen, the 2026-07-28 way to subscribe to resource updates (not covered by #42)';

const LISTED_FOR_ALL =
  'every published tool is listed to every client (lists are compiled once per surface); a tool needing a capability this client did not declare (here the task-augmented *-async tools) is refused at call time with -32021 naming the capability (README, "Protocol behaviour worth knowing")';
const CLIENT_TASKS =
  'by design: a task-augmented request makes the client host a task that the upstream may poll (tasks/get, tasks/result) on its session outside the call that asked, for as long as the task lives; the stateless gateway keeps no channel to a caller between calls to carry those polls, so it declares no `tasks.requests` upstream and refuses a tool that needs them with -32021 naming `tasks` (README, "Tasks, what is not relayed")';
const EXECUTION_LEGACY =
  "by design: a listed tool describes what the gateway serves, so `execution.taskSupport` is published on 2025-11-25 only for a tool whose tasks the gateway proxies (`optional`/`required`), and the upstream's explicit `taskSupport: \"forbidden\"` is left out (absent means forbidden in that revision); this row compares the whole field literally";
const EXECUTION_MODERN =
  'by design: in the final Tasks extension (2026-07-28, SEP-2663) a tool declares no task support (the server answers a call with a task when it chooses, to a client that declared the extension), so the gateway publishes no `execution` in that era; this row compares the whole field literally';

/**
 * Rows expected to fail on this branch, `<server>/<row id>/<era>` → reason (shown in the doc). Flip a row
 * by deleting its line once the change it waits for is merged: the test fails while a listed row
 * passes, so none is forgotten.
 */
const KNOWN_GAPS: Record<string, string> = {
  'everything/tools-list/modern': LISTED_FOR_ALL,
  'everything/sampling-async/legacy': CLIENT_TASKS,
  'everything/elicitation-async/legacy': CLIENT_TASKS,
  'everything/task-support/legacy': EXECUTION_LEGACY,
  'everything/task-support/modern': EXECUTION_MODERN,
  'everything/logging/modern': MODERN_LOGGING,
  'everything/subscribe/modern': MODERN_LISTEN,
  'everything/instructions/legacy': INSTRUCTIONS,
  'everything/instructions/modern': INSTRUCTIONS,
  'sdkexample/task-support/legacy': EXECUTION_LEGACY,
  'sdkexample/task-support/modern': EXECUTION_MODERN,
  'sdkexample/logging/modern': MODERN_LOGGING,
  'sdkexample/notification-stream/modern': MODERN_LOGGING,
};

/** Features #42 names that neither reference server can show (both speak 2025-11-25 only): what the gateway does, and why. */
const NOT_EXERCISED = [
  "**A 2026-07-28 upstream's own tasks (SEP-2663)** are proxied, but neither reference server makes one (both speak 2025-11-25). A call whose caller can take a task (a 2026-07-28 request declaring the tasks extension, or a 2025-11-25 task-augmented call) reaches a 2026-07-28 upstream with the extension declared; when the upstream answers with a task, its id is sealed with the caller's tenant and subject into a `ut2.` handle any replica serves by forwarding `tasks/get`, `tasks/update` and `tasks/cancel` (a 2025-11-25 client gets `tasks/get`, `tasks/result` polled to the end for at most 60 s, and `tasks/cancel`). Every other call declares nothing and stays synchronous. `apps/registry/e2e/modern-upstream-tasks.spec.ts` drives this against an SDK v2 upstream through two gateways. Not done: these tasks are not in a 2025-11-25 client's `tasks/list`; `server/discover` names the extension for a catalog with a 2026-07-28 upstream's tool whether or not that upstream declared it (discovery does not record it), and the 2025-11-25 `initialize` advertises no tasks for such tools (the SDK 1.x client sends `params.task` regardless); and a task waiting for input shows a 2025-11-25 client `working` with a statusMessage saying why.",
  "**Roots across replicas.** A `roots/list` the upstream sends on a caller's own session outside a call is answered by the replica holding that session's stream; it reaches the caller only when the caller's call in flight runs on that replica (else -32601, and the reference server then reports no roots). This run uses one gateway.",
  "**A task's input across replicas (2026-07-28 clients).** A 2025-11-25 upstream's request for a task's input, sent on the caller's own session, is held by the replica holding that session's stream and shared through Redis: any replica's tasks/get lists it as `inputRequests`, and a tasks/update on another replica is relayed to the holder (`apps/gateway/e2e/upstream-task-input.spec.ts` runs two gateways). This run uses one gateway.",
];

/** Rows that do not exist in one era, `<server>/<row id>/<era>` → why. */
const NOT_APPLICABLE: Record<string, string> = {
  'everything/sampling-async/modern':
    'a 2026-07-28 client answers server requests inside input_required rounds; it has no task-augmented sampling to declare, so the server does not offer this tool to it',
  'everything/elicitation-async/modern':
    'a 2026-07-28 client answers server requests inside input_required rounds; it has no task-augmented elicitation to declare, so the server does not offer this tool to it',
};

type Json = Record<string, unknown>;
type Content = Json & { type: string };
type ToolResult = { content?: Content[]; structuredContent?: unknown; isError?: boolean };
type ToolDef = { name: string; title?: string; description?: string; inputSchema?: unknown; outputSchema?: unknown; annotations?: unknown; execution?: unknown };
type Notice = { method: string; params?: Json };

/** One era's client through the gateway, behind the same small surface. */
interface Driver {
  era: Era;
  /** Notifications received outside a request's own callbacks. */
  notices: Notice[];
  /** Elicitation requests the client was asked, in order. */
  elicitations: Json[];
  /** The instructions the server gave at initialize (2025-11-25) or server/discover (2026-07-28). */
  instructions(): string | undefined;
  listTools(): Promise<ToolDef[]>;
  listPrompts(): Promise<string[]>;
  listResources(): Promise<string[]>;
  listTemplates(): Promise<string[]>;
  callTool(name: string, args: Json, onProgress?: (p: { progress: number; total?: number; message?: string }) => void): Promise<ToolResult>;
  /** A task-augmented call, followed to its final result. */
  callAsTask(name: string, args: Json): Promise<ToolResult>;
  getPrompt(name: string, args?: Record<string, string>): Promise<{ messages: Array<{ role: string; content: Content }> }>;
  readResource(uri: string): Promise<Array<Json & { uri: string; text?: string; blob?: string; mimeType?: string }>>;
  complete(ref: Json, argument: { name: string; value: string }, context?: Record<string, string>): Promise<string[]>;
  /** Subscribes to updates of `uri`; resolves with the unsubscribe. */
  subscribe(uri: string): Promise<() => Promise<void>>;
  setLogLevel(level: 'debug'): Promise<void>;
  close(): Promise<void>;
}

const CALL_TIMEOUT_MS = 10_000;
const NOTICE_DEADLINE_MS = 2_000;
const SAMPLED = 'sampled-by-interop';
const ROOT = { uri: 'file:///srv/interop', name: 'interop-root' };
const CAPABILITIES = { sampling: {}, elicitation: { form: {}, url: {} }, roots: { listChanged: true } };
// The 2025-11-25 client also says it can run sampling/elicitation as tasks: the server then offers its async tools.
const LEGACY_CAPABILITIES = { ...CAPABILITIES, tasks: { requests: { sampling: { createMessage: {} }, elicitation: { create: {} } } } };

const sampled = { role: 'assistant', model: 'interop', content: { type: 'text', text: SAMPLED } } as const;
const elicited = (params: Json) => (params.mode === 'url' ? { action: 'accept' as const } : { action: 'accept' as const, content: { name: 'Ada Lovelace' } });

function check(ok: unknown, message: string): asserts ok {
  if (!ok) throw new Error(message);
}

/** The first text of a tool result; a tool error (`isError`) throws with its text. */
function textOf(result: ToolResult): string {
  const texts = (result.content ?? []).filter((c) => c.type === 'text').map((c) => String(c.text));
  if (result.isError) throw new Error(`tool error: ${texts.join(' ')}`);
  return texts.join('\n');
}

/** An error as the doc shows it: code and message, without the transport's decoration or run-specific ids. */
function observed(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown };
  const message = String(e?.message ?? err).replace(/^MCP error -?\d+: /, '');
  const code = typeof e?.code === 'number' && !message.startsWith(String(e.code)) ? `${e.code} ` : '';
  return `${code}${message}`
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<uuid>')
    .replace(/localhost:\d+|127\.0\.0\.1:\d+/g, 'localhost:<port>')
    .replace(/\s+/g, ' ')
    .slice(0, 240);
}

async function waitForNotice(d: Driver, method: string, what: string): Promise<Notice> {
  try {
    return await until(what, () => d.notices.find((n) => n.method === method), NOTICE_DEADLINE_MS, 25);
  } catch {
    throw new Error(`no ${method} within ${NOTICE_DEADLINE_MS} ms`);
  }
}

function legacyDriver(url: string, capabilities: Json = LEGACY_CAPABILITIES): { client: SdkClient; driver: Driver } {
  const notices: Notice[] = [];
  const elicitations: Json[] = [];
  const client = new SdkClient({ name: 'interop-sdk1', version: '1.0.0' }, { capabilities });
  client.setRequestHandler(CreateMessageRequestSchema, async () => sampled);
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    elicitations.push(request.params as Json);
    return elicited(request.params as Json);
  });
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [ROOT] }));
  client.fallbackNotificationHandler = async (n) => void notices.push({ method: n.method, params: n.params as Json | undefined });
  const opts = { timeout: CALL_TIMEOUT_MS };
  const driver: Driver = {
    era: 'legacy',
    notices,
    elicitations,
    instructions: () => client.getInstructions(),
    listTools: async () => (await client.listTools(undefined, opts)).tools as ToolDef[],
    listPrompts: async () => (await client.listPrompts(undefined, opts)).prompts.map((p) => p.name),
    listResources: async () => (await client.listResources(undefined, opts)).resources.map((r) => r.uri),
    listTemplates: async () => (await client.listResourceTemplates(undefined, opts)).resourceTemplates.map((t) => t.uriTemplate),
    callTool: async (name, args, onProgress) =>
      (await client.callTool({ name, arguments: args }, CallToolResultSchema, { ...opts, ...(onProgress ? { onprogress: onProgress } : {}) })) as ToolResult,
    callAsTask: async (name, args) => {
      let final: ToolResult | undefined;
      for await (const message of client.experimental.tasks.callToolStream({ name, arguments: args }, CallToolResultSchema, { ...opts, task: { ttl: 60_000 } })) {
        if (message.type === 'error') throw message.error;
        if (message.type === 'result') final = message.result as ToolResult;
      }
      check(final, 'the task stream ended without a result');
      return final;
    },
    getPrompt: async (name, args) => (await client.getPrompt({ name, ...(args ? { arguments: args } : {}) }, opts)) as { messages: Array<{ role: string; content: Content }> },
    readResource: async (uri) => (await client.readResource({ uri }, opts)).contents as Array<Json & { uri: string }>,
    complete: async (ref, argument, context) =>
      (await client.complete({ ref: ref as { type: 'ref/prompt'; name: string }, argument, ...(context ? { context: { arguments: context } } : {}) }, opts)).completion.values,
    subscribe: async (uri) => {
      await client.subscribeResource({ uri }, opts);
      return async () => void (await client.unsubscribeResource({ uri }, opts));
    },
    setLogLevel: async (level) => void (await client.setLoggingLevel(level, opts)),
    close: () => client.close(),
  };
  return { client, driver };
}

const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** A 2026-07-28 request by plain fetch (per-request `_meta`), for the tasks extension the v2 client does not speak. */
async function modernRpc(mcpUrl: string, id: number, method: string, params: Json, name: string): Promise<{ result?: Json; error?: { code: number; message: string } }> {
  const res = await fetch(mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, 'mcp-name': name },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': { ...CAPABILITIES, extensions: { [TASKS_EXTENSION]: {} } },
          'io.modelcontextprotocol/clientInfo': { name: 'interop-v2-tasks', version: '2.0.0' },
        },
      },
    }),
  });
  const text = await res.text();
  const data = text.trimStart().startsWith('{')
    ? text
    : text
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trim())
        .filter((l) => l.includes('"id"'))
        .pop();
  check(data, `HTTP ${res.status} without a JSON-RPC answer`);
  return JSON.parse(data) as { result?: Json; error?: { code: number; message: string } };
}

function modernDriver(mcpUrl: string): { client: V2Client; driver: Driver } {
  const notices: Notice[] = [];
  const elicitations: Json[] = [];
  const client = new V2Client({ name: 'interop-v2', version: '2.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: CAPABILITIES });
  client.setRequestHandler('sampling/createMessage', async () => sampled);
  client.setRequestHandler('elicitation/create', async (request) => {
    elicitations.push(request.params as Json);
    return elicited(request.params as Json);
  });
  client.setRequestHandler('roots/list', async () => ({ roots: [ROOT] }));
  client.setNotificationHandler('notifications/message', (n) => void notices.push({ method: n.method, params: n.params as Json }));
  client.setNotificationHandler('notifications/resources/updated', (n) => void notices.push({ method: n.method, params: n.params as Json }));
  const opts = { timeout: CALL_TIMEOUT_MS };
  let nextId = 1;
  const driver: Driver = {
    era: 'modern',
    notices,
    elicitations,
    instructions: () => client.getInstructions(),
    listTools: async () => (await client.listTools(undefined, opts)).tools as ToolDef[],
    listPrompts: async () => (await client.listPrompts(undefined, opts)).prompts.map((p) => p.name),
    listResources: async () => (await client.listResources(undefined, opts)).resources.map((r) => r.uri),
    listTemplates: async () => (await client.listResourceTemplates(undefined, opts)).resourceTemplates.map((t) => t.uriTemplate),
    callTool: async (name, args, onProgress) => (await client.callTool({ name, arguments: args }, { ...opts, ...(onProgress ? { onprogress: onProgress } : {}) })) as ToolResult,
    callAsTask: async (name, args) => {
      const created = await modernRpc(mcpUrl, nextId++, 'tools/call', { name, arguments: args }, name);
      if (created.error) throw Object.assign(new Error(created.error.message), { code: created.error.code });
      const first = created.result ?? {};
      if (first.resultType !== 'task') return first as ToolResult;
      const taskId = String(first.taskId);
      const answered = new Set<string>();
      const done = await until(
        `task ${name} completed`,
        async () => {
          const got = await modernRpc(mcpUrl, nextId++, 'tasks/get', { taskId }, taskId);
          if (got.error) throw Object.assign(new Error(got.error.message), { code: got.error.code });
          const status = got.result?.status;
          if (status === 'failed' || status === 'cancelled') throw new Error(`task ${String(status)}`);
          if (status === 'input_required') {
            // The task asks as the tasks extension says: inputRequests in the task, answered by tasks/update.
            const asked = Object.entries((got.result?.inputRequests ?? {}) as Record<string, { method: string; params: Json }>).filter(([k]) => !answered.has(k));
            const inputResponses: Json = {};
            for (const [key, request] of asked) {
              answered.add(key);
              if (request.method === 'elicitation/create') elicitations.push(request.params);
              inputResponses[key] = request.method === 'elicitation/create' ? elicited(request.params) : request.method === 'sampling/createMessage' ? sampled : { roots: [ROOT] };
            }
            if (asked.length > 0) {
              const updated = await modernRpc(mcpUrl, nextId++, 'tasks/update', { taskId, inputResponses }, taskId);
              if (updated.error) throw Object.assign(new Error(updated.error.message), { code: updated.error.code });
            }
          }
          return status === 'completed' ? got.result : undefined;
        },
        CALL_TIMEOUT_MS,
        100,
      );
      return (done.result ?? {}) as ToolResult;
    },
    getPrompt: async (name, args) => (await client.getPrompt({ name, ...(args ? { arguments: args } : {}) }, opts)) as { messages: Array<{ role: string; content: Content }> },
    readResource: async (uri) => (await client.readResource({ uri }, opts)).contents as Array<Json & { uri: string }>,
    complete: async (ref, argument, context) =>
      (await client.complete({ ref: ref as { type: 'ref/prompt'; name: string }, argument, ...(context ? { context: { arguments: context } } : {}) }, opts)).completion.values,
    // 2026-07-28 has no resources/subscribe: a client listens (subscriptions/listen) for the URIs it wants.
    subscribe: async (uri) => {
      const subscription = await client.listen({ resourceSubscriptions: [uri] }, opts);
      return () => subscription.close();
    },
    // 2026-07-28 has no session to set a level on: the client's level travels with each request.
    setLogLevel: async () => undefined,
    close: () => client.close(),
  };
  return { client, driver };
}

/** What a client declaring the same capabilities sees connected to the server directly (the oracle). */
interface Direct {
  instructions: string | undefined;
  tools: ToolDef[];
  prompts: string[];
  resources: string[];
  templates: string[];
}

interface RowSpec {
  id: string;
  feature: string;
  checks: string;
  /** Resolves (optionally with a short note for the table) when the feature works; throws what was observed otherwise. */
  run(d: Driver, direct: Direct): Promise<string | void>;
}

const sorted = (xs: string[]) => [...xs].sort();
const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
/** JSON with object keys sorted: key order carries no meaning (the registry stores definitions as jsonb, which reorders keys). */
const canonical = (v: unknown): string =>
  JSON.stringify(v, (_k, x: unknown) =>
    x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x as Json).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : x,
  );
const same = (a: unknown, b: unknown) => canonical(a) === canonical(b);
function missingFrom(expected: string[], actual: string[]): string {
  const missing = expected.filter((x) => !actual.includes(x));
  const extra = actual.filter((x) => !expected.includes(x));
  return [missing.length ? `missing ${missing.join(', ')}` : '', extra.length ? `unexpected ${extra.join(', ')}` : ''].filter(Boolean).join('; ');
}
const DATA_URI = `data:text/plain;base64,${Buffer.from('hello interop').toString('base64')}`;
const gunzipBase64 = (blob: unknown) => gunzipSync(Buffer.from(String(blob), 'base64')).toString('utf8');

const EVERYTHING_ROWS: RowSpec[] = [
  {
    id: 'tools-list',
    feature: 'tools/list',
    checks: 'the tool names equal those the same client sees connected directly',
    run: async (d, direct) => {
      const got = (await d.listTools()).map((t) => t.name);
      const want = direct.tools.map((t) => t.name).filter((n) => d.era === 'legacy' || !n.endsWith('-async'));
      const diff = missingFrom(want, got);
      check(!diff, diff);
      return count(got.length, 'tool');
    },
  },
  {
    id: 'tool-definitions',
    feature: 'tool definitions',
    checks: 'title, description, inputSchema, outputSchema and every declared annotation of each listed tool equal the upstream’s',
    run: async (d, direct) => {
      const fields = ['title', 'description', 'inputSchema', 'outputSchema', 'annotations'] as const;
      const changed: string[] = [];
      for (const tool of await d.listTools()) {
        const upstream = direct.tools.find((t) => t.name === tool.name);
        check(upstream, `${tool.name} is not the upstream's`);
        for (const f of fields) {
          // Hints the tenant added where the server declared none are the tenant's; every hint the server declared must stay.
          const kept = f === 'annotations' ? Object.entries((upstream.annotations ?? {}) as Json).every(([k, v]) => same((tool.annotations as Json | undefined)?.[k], v)) : same(tool[f], upstream[f]);
          if (!kept) changed.push(`${tool.name}.${f}`);
        }
      }
      check(changed.length === 0, `changed: ${changed.join(', ')}`);
    },
  },
  {
    id: 'task-support',
    feature: 'task support in tool definitions (`execution`)',
    checks: 'every listed tool keeps the upstream’s execution.taskSupport (some tools require a task)',
    run: async (d, direct) => {
      const changed = (await d.listTools()).filter((t) => !same(t.execution, direct.tools.find((u) => u.name === t.name)?.execution)).map((t) => t.name);
      check(changed.length === 0, `execution missing or changed on ${changed.length} tools, e.g. ${changed.slice(0, 3).join(', ')}`);
    },
  },
  {
    id: 'prompts-list',
    feature: 'prompts/list',
    checks: 'the prompt names equal the upstream’s',
    run: async (d, direct) => {
      const diff = missingFrom(direct.prompts, await d.listPrompts());
      check(!diff, diff);
      return count(direct.prompts.length, 'prompt');
    },
  },
  {
    id: 'resources-list',
    feature: 'resources/list',
    checks: 'the static resource URIs equal the upstream’s',
    run: async (d, direct) => {
      const diff = missingFrom(direct.resources, await d.listResources());
      check(!diff, diff);
      return count(direct.resources.length, 'resource');
    },
  },
  {
    id: 'templates-list',
    feature: 'resources/templates/list',
    checks: 'the URI templates equal the upstream’s',
    run: async (d, direct) => {
      const diff = missingFrom(direct.templates, await d.listTemplates());
      check(!diff, diff);
      return count(direct.templates.length, 'template');
    },
  },
  {
    id: 'instructions',
    feature: 'server instructions',
    checks: 'the instructions the server gives at connection reach the client',
    run: async (d, direct) => {
      check(direct.instructions, 'the server gave no instructions');
      const got = d.instructions();
      check(got === direct.instructions, got ? `got other instructions: ${got.slice(0, 60)}` : 'the client got no instructions');
    },
  },
  {
    id: 'text',
    feature: 'text content (`echo`)',
    checks: 'the echoed text comes back',
    run: async (d) => {
      const text = textOf(await d.callTool('echo', { message: `hello from ${d.era}` }));
      check(text === `Echo: hello from ${d.era}`, `got ${text}`);
    },
  },
  {
    id: 'arguments',
    feature: 'typed arguments (`get-sum`)',
    checks: 'numeric arguments reach the tool: 2 + 3 = 5',
    run: async (d) => {
      const text = textOf(await d.callTool('get-sum', { a: 2, b: 3 }));
      check(text === 'The sum of 2 and 3 is 5.', `got ${text}`);
    },
  },
  {
    id: 'image',
    feature: 'image content (`get-tiny-image`)',
    checks: 'an image/png block with base64 data',
    run: async (d) => {
      const result = await d.callTool('get-tiny-image', {});
      textOf(result);
      const image = result.content?.find((c) => c.type === 'image');
      check(image && image.mimeType === 'image/png' && /^[A-Za-z0-9+/]+=*$/.test(String(image.data)), `no image/png block in ${JSON.stringify(result.content?.map((c) => c.type))}`);
    },
  },
  {
    id: 'annotations',
    feature: 'content annotations (`get-annotated-message`)',
    checks: 'priority and audience on the text and on the image block',
    run: async (d) => {
      const result = await d.callTool('get-annotated-message', { messageType: 'error', includeImage: true });
      textOf(result);
      const [text, image] = result.content ?? [];
      check(same(text?.annotations, { priority: 1, audience: ['user', 'assistant'] }), `text annotations ${JSON.stringify(text?.annotations)}`);
      check(image?.type === 'image' && same(image.annotations, { priority: 0.5, audience: ['user'] }), `image annotations ${JSON.stringify(image?.annotations)}`);
    },
  },
  {
    id: 'structured',
    feature: 'structured content + outputSchema (`get-structured-content`)',
    checks: 'structuredContent matches the tool’s listed outputSchema',
    run: async (d) => {
      const tool = (await d.listTools()).find((t) => t.name === 'get-structured-content');
      check(tool?.outputSchema, 'no outputSchema listed');
      const result = await d.callTool('get-structured-content', { location: 'Chicago' });
      textOf(result);
      check(same(result.structuredContent, { temperature: 36, conditions: 'Light rain / drizzle', humidity: 82 }), `structuredContent ${JSON.stringify(result.structuredContent)}`);
    },
  },
  {
    id: 'resource-links',
    feature: 'resource links (`get-resource-links`)',
    checks: 'four resource_link blocks, each readable through the gateway (they match the published templates)',
    run: async (d) => {
      const result = await d.callTool('get-resource-links', { count: 4 });
      textOf(result);
      const links = (result.content ?? []).filter((c) => c.type === 'resource_link');
      check(links.length === 4, `${links.length} resource links`);
      for (const link of links) {
        const [content] = await d.readResource(String(link.uri));
        check(content?.uri === link.uri, `read of ${String(link.uri)} answered ${content?.uri}`);
      }
    },
  },
  {
    id: 'embedded-resource',
    feature: 'embedded resources (`get-resource-reference`)',
    checks: 'a resource block carrying the text of demo://resource/dynamic/text/2',
    run: async (d) => {
      const result = await d.callTool('get-resource-reference', { resourceType: 'Text', resourceId: 2 });
      textOf(result);
      const embedded = result.content?.find((c) => c.type === 'resource')?.resource as { uri?: string; text?: string } | undefined;
      check(embedded?.uri === 'demo://resource/dynamic/text/2' && embedded.text?.startsWith('Resource 2: '), `embedded ${JSON.stringify(embedded)}`);
    },
  },
  {
    id: 'embedded-blob',
    feature: 'embedded blob resources (`gzip-file-as-resource`, `outputType: resource`)',
    checks: 'the gzip blob of a data: URI comes back and unpacks to the original text',
    run: async (d) => {
      const result = await d.callTool('gzip-file-as-resource', { name: `embedded-${d.era}.gz`, data: DATA_URI, outputType: 'resource' });
      textOf(result);
      const embedded = result.content?.find((c) => c.type === 'resource')?.resource as { blob?: string } | undefined;
      check(embedded?.blob && gunzipBase64(embedded.blob) === 'hello interop', 'no gzip blob');
    },
  },
  {
    id: 'dynamic-resource',
    feature: 'resources the server creates (`gzip-file-as-resource`, `outputType: resourceLink`)',
    checks: 'the session resource behind the returned link reads back and unpacks to the original text',
    run: async (d) => {
      const result = await d.callTool('gzip-file-as-resource', { name: `linked-${d.era}.gz`, data: DATA_URI, outputType: 'resourceLink' });
      textOf(result);
      const link = result.content?.find((c) => c.type === 'resource_link');
      check(link?.uri === `demo://resource/session/linked-${d.era}.gz`, `link ${JSON.stringify(link)}`);
      const [content] = await d.readResource(String(link.uri));
      check(content?.blob && gunzipBase64(content.blob) === 'hello interop', 'read without the gzip blob');
    },
  },
  {
    id: 'tool-error',
    feature: 'tool errors',
    checks: '`get-resource-reference` with resourceId 0 answers isError with the server’s message',
    run: async (d) => {
      const result = await d.callTool('get-resource-reference', { resourceType: 'Text', resourceId: 0 });
      check(result.isError === true, 'no isError');
      const text = (result.content ?? []).map((c) => String(c.text)).join(' ');
      check(text.includes('Invalid resourceId: 0'), `text ${text}`);
    },
  },
  {
    id: 'env',
    feature: 'server environment (`get-env`)',
    checks: 'the server’s own environment comes back as JSON (it is started with PATH and PORT only)',
    run: async (d) => {
      const env = JSON.parse(textOf(await d.callTool('get-env', {}))) as Record<string, unknown>;
      check(typeof env.PORT === 'string', `keys ${Object.keys(env).join(', ')}`);
    },
  },
  {
    id: 'progress',
    feature: 'progress notifications (`trigger-long-running-operation`)',
    checks: 'progress 1/3, 2/3, 3/3 reach the caller’s onprogress, then the result',
    run: async (d) => {
      const seen: string[] = [];
      // The v2 client reports its own input_required rounds through onprogress too (a round happens
      // when the server asks the caller for roots mid-call); only the server's progress counts here.
      const own = (p: { message?: string }) => p.message?.startsWith('Fulfilling input required') === true;
      const text = textOf(
        await d.callTool('trigger-long-running-operation', { duration: 0.3, steps: 3 }, (p) => void (own(p) || seen.push(`${p.progress}/${p.total}`))),
      );
      check(text.startsWith('Long running operation completed'), `got ${text}`);
      check(same(seen, ['1/3', '2/3', '3/3']), `progress ${seen.join(', ') || 'none'}`);
    },
  },
  {
    id: 'logging',
    feature: 'logging (`toggle-simulated-logging`)',
    checks: 'after logging/setLevel debug (2025-11-25), the server’s log messages reach the client',
    run: async (d) => {
      await d.setLogLevel('debug');
      textOf(await d.callTool('toggle-simulated-logging', {}));
      try {
        await waitForNotice(d, 'notifications/message', 'a log message');
      } finally {
        await d.callTool('toggle-simulated-logging', {}); // stops the server's 5 s timer
      }
    },
  },
  {
    id: 'subscribe',
    feature: 'resource subscriptions (`toggle-subscriber-updates`)',
    checks: 'after subscribing to a URI (resources/subscribe; subscriptions/listen on 2026-07-28), notifications/resources/updated for it reach the client',
    run: async (d) => {
      const uri = 'demo://resource/static/document/features.md';
      const unsubscribe = await d.subscribe(uri);
      try {
        textOf(await d.callTool('toggle-subscriber-updates', {}));
        try {
          const notice = await waitForNotice(d, 'notifications/resources/updated', 'a resource update');
          check(notice.params?.uri === uri, `update for ${String(notice.params?.uri)}`);
        } finally {
          await d.callTool('toggle-subscriber-updates', {}); // stops the server's 5 s timer
        }
      } finally {
        await unsubscribe();
      }
    },
  },
  {
    id: 'sampling',
    feature: 'sampling (`trigger-sampling-request`)',
    checks: 'the server’s sampling/createMessage reaches the client and its answer reaches the server',
    run: async (d) => {
      const text = textOf(await d.callTool('trigger-sampling-request', { prompt: 'say something', maxTokens: 10 }));
      check(text.includes(SAMPLED), `got ${text}`);
    },
  },
  {
    id: 'elicitation-form',
    feature: 'form elicitation (`trigger-elicitation-request`)',
    checks: 'the form reaches the client and the accepted content reaches the server',
    run: async (d) => {
      const text = textOf(await d.callTool('trigger-elicitation-request', {}));
      check(text.includes('Name: Ada Lovelace'), `got ${text}`);
    },
  },
  {
    id: 'elicitation-url',
    feature: 'URL elicitation (`trigger-url-elicitation`)',
    checks: 'an elicitation/create in url mode reaches the client with the URL, and its accept reaches the server',
    run: async (d) => {
      const url = `https://example.com/consent/${d.era}`;
      const text = textOf(await d.callTool('trigger-url-elicitation', { url, elicitationId: `url-${d.era}` }));
      check(text.includes('User completed the URL elicitation'), `got ${text}`);
      check(d.elicitations.some((e) => e.mode === 'url' && e.url === url), 'the client was not asked with the URL');
    },
  },
  {
    id: 'elicitation-url-error',
    feature: 'URL elicitation required error (`trigger-url-elicitation`, `errorPath: true`)',
    checks: 'the call fails with -32042 carrying the prerequisite URL elicitation',
    run: async (d) => {
      let failure: { code?: unknown; data?: { elicitations?: Array<{ url?: string }> } } | undefined;
      try {
        const result = await d.callTool('trigger-url-elicitation', { url: 'https://example.com/prereq', elicitationId: `err-${d.era}`, errorPath: true });
        textOf(result);
      } catch (err) {
        failure = err as typeof failure;
        if ((err as { code?: unknown }).code !== -32042) throw err;
      }
      check(failure?.code === -32042, 'the call did not fail with -32042');
      check(failure.data?.elicitations?.[0]?.url === 'https://modelcontextprotocol.io', `elicitations ${JSON.stringify(failure.data)}`);
    },
  },
  {
    id: 'roots',
    feature: 'roots (`get-roots-list`)',
    checks: 'the server’s roots/list reaches the client and the tool lists the client’s root',
    run: async (d) => {
      const text = textOf(await d.callTool('get-roots-list', {}));
      check(text.includes(ROOT.uri), `got ${text}`);
    },
  },
  {
    id: 'sampling-async',
    feature: 'client-side task sampling (`trigger-sampling-request-async`)',
    checks: 'the server’s task-capable sampling request is answered (synchronously) by the client',
    run: async (d) => {
      const text = textOf(await d.callTool('trigger-sampling-request-async', { prompt: 'say something', maxTokens: 10 }));
      check(text.includes(SAMPLED), `got ${text}`);
    },
  },
  {
    id: 'elicitation-async',
    feature: 'client-side task elicitation (`trigger-elicitation-request-async`)',
    checks: 'the server’s task-capable elicitation is answered (synchronously) by the client',
    run: async (d) => {
      const text = textOf(await d.callTool('trigger-elicitation-request-async', {}));
      check(text.includes('Ada Lovelace'), `got ${text}`);
    },
  },
  {
    id: 'tasks',
    feature: 'tasks (`simulate-research-query`, taskSupport required)',
    checks: 'a task-augmented call is created, polled to completed, and its result is the research report',
    run: async (d) => {
      const text = textOf(await d.callAsTask('simulate-research-query', { topic: `interop ${d.era}` }));
      check(text.includes(`# Research Report: interop ${d.era}`), `got ${text.slice(0, 120)}`);
    },
  },
  {
    id: 'prompt-simple',
    feature: 'prompts/get without arguments (`simple-prompt`)',
    checks: 'the prompt’s message comes back',
    run: async (d) => {
      const { messages } = await d.getPrompt('simple-prompt');
      check(messages[0]?.content.text === 'This is a simple prompt without arguments.', `messages ${JSON.stringify(messages)}`);
    },
  },
  {
    id: 'prompt-args',
    feature: 'prompts/get with arguments (`args-prompt`)',
    checks: 'required and optional arguments reach the prompt',
    run: async (d) => {
      const { messages } = await d.getPrompt('args-prompt', { city: 'Lisbon', state: 'PT' });
      check(messages[0]?.content.text === "What's weather in Lisbon, PT?", `messages ${JSON.stringify(messages)}`);
    },
  },
  {
    id: 'prompt-resource',
    feature: 'prompts with embedded resources (`resource-prompt`)',
    checks: 'the embedded blob resource comes back in the prompt’s messages',
    run: async (d) => {
      const { messages } = await d.getPrompt('resource-prompt', { resourceType: 'Blob', resourceId: '5' });
      const resource = messages[1]?.content.resource as { uri?: string; blob?: string } | undefined;
      check(resource?.uri === 'demo://resource/dynamic/blob/5' && Buffer.from(String(resource.blob), 'base64').toString().startsWith('Resource 5: '), `messages ${JSON.stringify(messages).slice(0, 200)}`);
    },
  },
  {
    id: 'static-read',
    feature: 'static resource reads',
    checks: 'every listed static document reads back as text/markdown',
    run: async (d, direct) => {
      for (const uri of direct.resources) {
        const [content] = await d.readResource(uri);
        check(content?.uri === uri && content.mimeType === 'text/markdown' && (content.text ?? '').length > 0, `read of ${uri}`);
      }
      return count(direct.resources.length, 'document');
    },
  },
  {
    id: 'template-read',
    feature: 'templated resource reads',
    checks: 'demo://resource/dynamic/text/7 and …/blob/8 read back with the server’s text and blob',
    run: async (d) => {
      const [text] = await d.readResource('demo://resource/dynamic/text/7');
      check(text?.text?.startsWith('Resource 7: This is a plaintext resource'), `text ${JSON.stringify(text)}`);
      const [blob] = await d.readResource('demo://resource/dynamic/blob/8');
      check(blob?.blob && Buffer.from(blob.blob, 'base64').toString().startsWith('Resource 8: This is a base64 blob'), `blob ${JSON.stringify(blob)}`);
    },
  },
  {
    id: 'completion-prompt',
    feature: 'prompt argument completion (`completable-prompt`)',
    checks: 'department "Sa" completes to Sales; name "A" with department Engineering (context) to Alice',
    run: async (d) => {
      const ref = { type: 'ref/prompt', name: 'completable-prompt' };
      const departments = await d.complete(ref, { name: 'department', value: 'Sa' });
      check(same(departments, ['Sales']), `department values ${JSON.stringify(departments)}`);
      const names = await d.complete(ref, { name: 'name', value: 'A' }, { department: 'Engineering' });
      check(same(names, ['Alice']), `name values ${JSON.stringify(names)}`);
    },
  },
  {
    id: 'completion-template',
    feature: 'resource template argument completion',
    checks: 'resourceId "42" of demo://resource/dynamic/text/{resourceId} completes to 42',
    run: async (d) => {
      const values = await d.complete({ type: 'ref/resource', uri: 'demo://resource/dynamic/text/{resourceId}' }, { name: 'resourceId', value: '42' });
      check(same(values, ['42']), `values ${JSON.stringify(values)}`);
    },
  },
];


/** The rows every server shares (lists and definitions against the direct connection). */
const LIST_ROWS = (ids: string[]): RowSpec[] => ids.map((id) => EVERYTHING_ROWS.find((r) => r.id === id)!);

const EXAMPLE_ROWS: RowSpec[] = [
  ...LIST_ROWS(['tools-list', 'tool-definitions', 'task-support', 'prompts-list', 'resources-list']),
  {
    id: 'text',
    feature: 'text content (`greet`)',
    checks: 'the greeting for the name comes back',
    run: async (d) => {
      const text = textOf(await d.callTool('greet', { name: `Ada ${d.era}` }));
      check(text === `Hello, Ada ${d.era}!`, `got ${text}`);
    },
  },
  {
    id: 'resource-links',
    feature: 'resource links (`list-files`)',
    checks: 'three resource_link blocks between two texts, each readable through the gateway',
    run: async (d) => {
      const result = await d.callTool('list-files', { includeDescriptions: true });
      textOf(result);
      const types = (result.content ?? []).map((c) => c.type);
      check(same(types, ['text', 'resource_link', 'resource_link', 'resource_link', 'text']), `content ${types.join(', ')}`);
      for (const link of (result.content ?? []).filter((c) => c.type === 'resource_link')) {
        const [content] = await d.readResource(String(link.uri));
        check(content?.uri === link.uri && (content.text ?? '').length > 0, `read of ${String(link.uri)}`);
      }
    },
  },
  {
    id: 'static-read',
    feature: 'static resource reads',
    checks: 'each listed resource reads back with the server’s text',
    run: async (d, direct) => {
      const texts: string[] = [];
      for (const uri of direct.resources) texts.push(String((await d.readResource(uri))[0]?.text));
      check(texts.includes('Hello, world!') && texts.includes('This is the content of file 1'), `texts ${JSON.stringify(texts)}`);
      return count(direct.resources.length, 'resource');
    },
  },
  {
    id: 'prompt-args',
    feature: 'prompts/get with arguments (`greeting-template`)',
    checks: 'the argument reaches the prompt',
    run: async (d) => {
      const { messages } = await d.getPrompt('greeting-template', { name: 'Grace' });
      check(messages[0]?.content.text === 'Please greet Grace in a friendly manner.', `messages ${JSON.stringify(messages)}`);
    },
  },
  {
    id: 'elicitation-form',
    feature: 'form elicitation (`collect-user-info`, registered for every client)',
    checks: 'the form reaches the client and the accepted content reaches the server',
    run: async (d) => {
      const text = textOf(await d.callTool('collect-user-info', { infoType: 'contact' }));
      check(text.startsWith('Thank you! Collected contact information') && text.includes('Ada Lovelace'), `got ${text}`);
    },
  },
  {
    id: 'logging',
    feature: 'logging during a call (`multi-greet`)',
    checks: 'the server’s log messages sent while the call runs reach the client, then the greeting',
    run: async (d) => {
      await d.setLogLevel('debug');
      const text = textOf(await d.callTool('multi-greet', { name: 'Ada' }));
      check(text === 'Good morning, Ada!', `got ${text}`);
      await waitForNotice(d, 'notifications/message', 'a log message');
    },
  },
  {
    id: 'notification-stream',
    feature: 'notification stream (`start-notification-stream`)',
    checks: 'three periodic log messages reach the client',
    run: async (d) => {
      const before = d.notices.length;
      textOf(await d.callTool('start-notification-stream', { interval: 10, count: 3 }));
      try {
        await until('three periodic notifications', () => d.notices.slice(before).filter((n) => String(n.params?.data).startsWith('Periodic notification')).length >= 3, NOTICE_DEADLINE_MS, 25);
      } catch {
        throw new Error(`${d.notices.length - before} of 3 periodic notifications within ${NOTICE_DEADLINE_MS} ms`);
      }
    },
  },
  {
    id: 'tasks',
    feature: 'tasks (`delay`, a task tool)',
    checks: 'a task-augmented call is created, polled to completed, and its result comes back',
    run: async (d) => {
      const text = textOf(await d.callAsTask('delay', { duration: 200 }));
      check(text === 'Completed 200ms delay', `got ${text}`);
    },
  },
  {
    id: 'task-elicitation',
    feature: 'elicitation inside a task (`collect-user-info-task`)',
    checks: 'the task asks the client for input (input_required), takes the answer and completes with it',
    run: async (d) => {
      const before = d.elicitations.length;
      const text = textOf(await d.callAsTask('collect-user-info-task', { infoType: 'contact' }));
      check(d.elicitations.length > before, 'the form never reached the client');
      check(text.startsWith('Collected contact info') && text.includes('Ada Lovelace'), `got ${text}`);
    },
  },
];

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
      direct = { instructions: driver.instructions(), tools: await driver.listTools(), prompts: sorted(await driver.listPrompts()), resources: sorted(await driver.listResources()), templates: sorted(await driver.listTemplates()) };
      await client.close();

      const server = await registerAndDiscover(registry.url, key, { id: serverId, name: spec.title, url: upstream.url, stateful: true, timeoutMs: 20_000 });
      if (server.health !== 'ok') throw new Error(`discovery of ${serverId}: ${JSON.stringify(server)}`);
      const items = (await api(registry.url, key, 'GET', `/v1/servers/${serverId}/items`)).body.items as Array<{ kind: string; name: string; missingHints?: string[] }>;
      // A hint the server does not declare gets the conservative value for a tool nobody here reviewed.
      const CONSERVATIVE: Record<string, boolean> = { readOnlyHint: false, destructiveHint: true, openWorldHint: true };
      const published = await api(registry.url, key, 'POST', '/v1/publications', {
        serverId,
        items: items.map((i) => ({
          kind: i.kind,
          name: i.name,
          ...(i.missingHints?.length ? { overrides: { annotations: Object.fromEntries(i.missingHints.map((h) => [h, CONSERVATIVE[h]])) } } : {}),
        })),
      });
      if (published.status !== 200) throw new Error(`publishing every item of ${serverId}: ${published.status} ${JSON.stringify(published.body)}`);
      if (spec.dynamicResources) {
        const dynamic = await api(registry.url, key, 'PATCH', `/v1/servers/${serverId}`, { dynamicResources: { uriPrefixes: spec.dynamicResources } });
        if (dynamic.status !== 200) throw new Error(`publishing ${serverId}'s dynamic resources: ${dynamic.status} ${JSON.stringify(dynamic.body)}`);
      }
      mcpUrl = `${gateway.url}/t/${serverId}/mcp`;
      await until(`the gateway serving ${serverId}'s publication`, async () => {
        const res = await fetch(mcpUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
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
          throw new Error(`${key} passes now: delete its line from KNOWN_GAPS and regenerate docs/compatibility.md (UPDATE_COMPATIBILITY=1)`);
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
        rows: spec.rows.map(
          (r): FeatureRow => ({
            id: r.id,
            feature: r.feature,
            checks: r.checks,
            outcomes: { legacy: outcomes.get(`${spec.id}/${r.id}/legacy`) ?? notRun, modern: outcomes.get(`${spec.id}/${r.id}/modern`) ?? notRun },
          }),
        ),
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
    if (committed !== doc) throw new Error(`docs/compatibility.md is out of date; regenerate it with UPDATE_COMPATIBILITY=1. This run produced:\n${doc}`);
  });
});
