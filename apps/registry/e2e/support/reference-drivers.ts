// Drivers and helpers of reference-servers.spec.ts: the two SDK clients, notices, and the doc's gap lists.

import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Client as V2Client } from '@modelcontextprotocol/client';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';

import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { type Era } from './compatibility-doc';

import { REPO_ROOT, until } from './harness';

export const GENERATOR = 'apps/registry/e2e/reference-servers.spec.ts';
export const DOC_PATH = path.join(REPO_ROOT, 'docs/compatibility.md');

export const MODERN_LOGGING =
  'the server logs outside any request; 2026-07-28 carries log messages only on the stream of the request they belong to, so such messages have no way to a 2026-07-28 client (a protocol limit, not covered by #42)';
export const INSTRUCTIONS =
  "by design: a tenant's surface merges several servers, so the gateway serves the tenant's own instructions (set in the registry), never one upstream's (not covered by #42)";
export const MODERN_LISTEN =
  'the gateway does not serve subscriptions/listen, the 2026-07-28 way to subscribe to resource updates (not covered by #42)';

export const LISTED_FOR_ALL =
  'every published tool is listed to every client (lists are compiled once per surface); a tool needing a capability this client did not declare (here the task-augmented *-async tools) is refused at call time with -32021 naming the capability (README, "Protocol behaviour worth knowing")';
export const CLIENT_TASKS =
  'by design: a task-augmented request makes the client host a task that the upstream may poll (tasks/get, tasks/result) on its session outside the call that asked, for as long as the task lives; the stateless gateway keeps no channel to a caller between calls to carry those polls, so it declares no `tasks.requests` upstream and refuses a tool that needs them with -32021 naming `tasks` (README, "Tasks, what is not relayed")';
export const EXECUTION_LEGACY =
  'by design: a listed tool describes what the gateway serves, so `execution.taskSupport` is published on 2025-11-25 only for a tool whose tasks the gateway proxies (`optional`/`required`), and the upstream\'s explicit `taskSupport: "forbidden"` is left out (absent means forbidden in that revision); this row compares the whole field literally';
export const EXECUTION_MODERN =
  'by design: in the final Tasks extension (2026-07-28, SEP-2663) a tool declares no task support (the server answers a call with a task when it chooses, to a client that declared the extension), so the gateway publishes no `execution` in that era; this row compares the whole field literally';

/**
 * Rows expected to fail on this branch, `<server>/<row id>/<era>` → reason (shown in the doc). Flip a row
 * by deleting its line once the change it waits for is merged: the test fails while a listed row
 * passes, so none is forgotten.
 */
export const KNOWN_GAPS: Record<string, string> = {
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
export const NOT_EXERCISED = [
  "**A 2026-07-28 upstream's own tasks (SEP-2663)** are proxied, but neither reference server makes one (both speak 2025-11-25). A call whose caller can take a task (a 2026-07-28 request declaring the tasks extension, or a 2025-11-25 task-augmented call) reaches a 2026-07-28 upstream with the extension declared; when the upstream answers with a task, its id is sealed with the caller's tenant and subject into a `ut2.` handle any replica serves by forwarding `tasks/get`, `tasks/update` and `tasks/cancel` (a 2025-11-25 client gets `tasks/get`, `tasks/result` polled to the end for at most 60 s, and `tasks/cancel`). Every other call declares nothing and stays synchronous. `apps/registry/e2e/modern-upstream-tasks.spec.ts` drives this against an SDK v2 upstream through two gateways. Not done: these tasks are not in a 2025-11-25 client's `tasks/list`; `server/discover` names the extension for a catalog with a 2026-07-28 upstream's tool whether or not that upstream declared it (discovery does not record it), and the 2025-11-25 `initialize` advertises no tasks for such tools (the SDK 1.x client sends `params.task` regardless); and a task waiting for input shows a 2025-11-25 client `working` with a statusMessage saying why.",
  "**Roots across replicas.** A `roots/list` the upstream sends on a caller's own session outside a call is answered by the replica holding that session's stream; it reaches the caller only when the caller's call in flight runs on that replica (else -32601, and the reference server then reports no roots). This run uses one gateway.",
  "**A task's input across replicas (2026-07-28 clients).** A 2025-11-25 upstream's request for a task's input, sent on the caller's own session, is held by the replica holding that session's stream and shared through Redis: any replica's tasks/get lists it as `inputRequests`, and a tasks/update on another replica is relayed to the holder (`apps/gateway/e2e/upstream-task-input.spec.ts` runs two gateways). This run uses one gateway.",
];

/** Rows that do not exist in one era, `<server>/<row id>/<era>` → why. */
export const NOT_APPLICABLE: Record<string, string> = {
  'everything/sampling-async/modern':
    'a 2026-07-28 client answers server requests inside input_required rounds; it has no task-augmented sampling to declare, so the server does not offer this tool to it',
  'everything/elicitation-async/modern':
    'a 2026-07-28 client answers server requests inside input_required rounds; it has no task-augmented elicitation to declare, so the server does not offer this tool to it',
};

export type Json = Record<string, unknown>;
export type Content = Json & { type: string };
export type ToolResult = { content?: Content[]; structuredContent?: unknown; isError?: boolean };
export type ToolDef = {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?: unknown;
  execution?: unknown;
};
export type Notice = { method: string; params?: Json };

/** One era's client through the gateway, behind the same small surface. */
export interface Driver {
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

export const CALL_TIMEOUT_MS = 10_000;
export const NOTICE_DEADLINE_MS = 2_000;
export const SAMPLED = 'sampled-by-interop';
export const ROOT = { uri: 'file:///srv/interop', name: 'interop-root' };
export const CAPABILITIES = { sampling: {}, elicitation: { form: {}, url: {} }, roots: { listChanged: true } };
// The 2025-11-25 client also says it can run sampling/elicitation as tasks: the server then offers its async tools.
export const LEGACY_CAPABILITIES = {
  ...CAPABILITIES,
  tasks: { requests: { sampling: { createMessage: {} }, elicitation: { create: {} } } },
};

export const sampled = { role: 'assistant', model: 'interop', content: { type: 'text', text: SAMPLED } } as const;
export const elicited = (params: Json) =>
  params.mode === 'url' ? { action: 'accept' as const } : { action: 'accept' as const, content: { name: 'Ada Lovelace' } };

export function check(ok: unknown, message: string): asserts ok {
  if (!ok) throw new Error(message);
}

/** The first text of a tool result; a tool error (`isError`) throws with its text. */
export function textOf(result: ToolResult): string {
  const texts = (result.content ?? []).filter((c) => c.type === 'text').map((c) => String(c.text));
  if (result.isError) throw new Error(`tool error: ${texts.join(' ')}`);
  return texts.join('\n');
}

/** An error as the doc shows it: code and message, without the transport's decoration or run-specific ids. */
export function observed(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown };
  const message = String(e?.message ?? err).replace(/^MCP error -?\d+: /, '');
  const code = typeof e?.code === 'number' && !message.startsWith(String(e.code)) ? `${e.code} ` : '';
  return `${code}${message}`
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<uuid>')
    .replace(/localhost:\d+|127\.0\.0\.1:\d+/g, 'localhost:<port>')
    .replace(/\s+/g, ' ')
    .slice(0, 240);
}

export async function waitForNotice(d: Driver, method: string, what: string): Promise<Notice> {
  try {
    return await until(what, () => d.notices.find((n) => n.method === method), NOTICE_DEADLINE_MS, 25);
  } catch {
    throw new Error(`no ${method} within ${NOTICE_DEADLINE_MS} ms`);
  }
}

export function legacyDriver(url: string, capabilities: Json = LEGACY_CAPABILITIES): { client: SdkClient; driver: Driver } {
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
      (await client.callTool({ name, arguments: args }, CallToolResultSchema, {
        ...opts,
        ...(onProgress ? { onprogress: onProgress } : {}),
      })) as ToolResult,
    callAsTask: async (name, args) => {
      let final: ToolResult | undefined;
      for await (const message of client.experimental.tasks.callToolStream({ name, arguments: args }, CallToolResultSchema, {
        ...opts,
        task: { ttl: 60_000 },
      })) {
        if (message.type === 'error') throw message.error;
        if (message.type === 'result') final = message.result as ToolResult;
      }
      check(final, 'the task stream ended without a result');
      return final;
    },
    getPrompt: async (name, args) =>
      (await client.getPrompt({ name, ...(args ? { arguments: args } : {}) }, opts)) as {
        messages: Array<{ role: string; content: Content }>;
      },
    readResource: async (uri) => (await client.readResource({ uri }, opts)).contents as Array<Json & { uri: string }>,
    complete: async (ref, argument, context) =>
      (
        await client.complete(
          { ref: ref as { type: 'ref/prompt'; name: string }, argument, ...(context ? { context: { arguments: context } } : {}) },
          opts,
        )
      ).completion.values,
    subscribe: async (uri) => {
      await client.subscribeResource({ uri }, opts);
      return async () => void (await client.unsubscribeResource({ uri }, opts));
    },
    setLogLevel: async (level) => void (await client.setLoggingLevel(level, opts)),
    close: () => client.close(),
  };
  return { client, driver };
}

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** A 2026-07-28 request by plain fetch (per-request `_meta`), for the tasks extension the v2 client does not speak. */
export async function modernRpc(
  mcpUrl: string,
  id: number,
  method: string,
  params: Json,
  name: string,
): Promise<{ result?: Json; error?: { code: number; message: string } }> {
  const res = await fetch(mcpUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      'mcp-name': name,
    },
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

export function modernDriver(mcpUrl: string): { client: V2Client; driver: Driver } {
  const notices: Notice[] = [];
  const elicitations: Json[] = [];
  const client = new V2Client(
    { name: 'interop-v2', version: '2.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: CAPABILITIES },
  );
  client.setRequestHandler('sampling/createMessage', async () => sampled);
  client.setRequestHandler('elicitation/create', async (request) => {
    elicitations.push(request.params as Json);
    return elicited(request.params as Json);
  });
  client.setRequestHandler('roots/list', async () => ({ roots: [ROOT] }));
  client.setNotificationHandler('notifications/message', (n) => void notices.push({ method: n.method, params: n.params as Json }));
  client.setNotificationHandler(
    'notifications/resources/updated',
    (n) => void notices.push({ method: n.method, params: n.params as Json }),
  );
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
    callTool: async (name, args, onProgress) =>
      (await client.callTool({ name, arguments: args }, { ...opts, ...(onProgress ? { onprogress: onProgress } : {}) })) as ToolResult,
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
            const asked = Object.entries((got.result?.inputRequests ?? {}) as Record<string, { method: string; params: Json }>).filter(
              ([k]) => !answered.has(k),
            );
            const inputResponses: Json = {};
            for (const [key, request] of asked) {
              answered.add(key);
              if (request.method === 'elicitation/create') elicitations.push(request.params);
              inputResponses[key] =
                request.method === 'elicitation/create'
                  ? elicited(request.params)
                  : request.method === 'sampling/createMessage'
                    ? sampled
                    : { roots: [ROOT] };
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
    getPrompt: async (name, args) =>
      (await client.getPrompt({ name, ...(args ? { arguments: args } : {}) }, opts)) as {
        messages: Array<{ role: string; content: Content }>;
      },
    readResource: async (uri) => (await client.readResource({ uri }, opts)).contents as Array<Json & { uri: string }>,
    complete: async (ref, argument, context) =>
      (
        await client.complete(
          { ref: ref as { type: 'ref/prompt'; name: string }, argument, ...(context ? { context: { arguments: context } } : {}) },
          opts,
        )
      ).completion.values,
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
export interface Direct {
  instructions: string | undefined;
  tools: ToolDef[];
  prompts: string[];
  resources: string[];
  templates: string[];
}

export interface RowSpec {
  id: string;
  feature: string;
  checks: string;
  /** Resolves (optionally with a short note for the table) when the feature works; throws what was observed otherwise. */
  run(d: Driver, direct: Direct): Promise<string | void>;
}

export const sorted = (xs: string[]) => [...xs].sort();
export const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
/** JSON with object keys sorted: key order carries no meaning (the registry stores definitions as jsonb, which reorders keys). */
export const canonical = (v: unknown): string =>
  JSON.stringify(v, (_k, x: unknown) =>
    x && typeof x === 'object' && !Array.isArray(x)
      ? Object.fromEntries(Object.entries(x as Json).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : x,
  );
export const same = (a: unknown, b: unknown) => canonical(a) === canonical(b);
export function missingFrom(expected: string[], actual: string[]): string {
  const missing = expected.filter((x) => !actual.includes(x));
  const extra = actual.filter((x) => !expected.includes(x));
  return [missing.length ? `missing ${missing.join(', ')}` : '', extra.length ? `unexpected ${extra.join(', ')}` : '']
    .filter(Boolean)
    .join('; ');
}
export const DATA_URI = `data:text/plain;base64,${Buffer.from('hello interop').toString('base64')}`;
export const gunzipBase64 = (blob: unknown) => gunzipSync(Buffer.from(String(blob), 'base64')).toString('utf8');
