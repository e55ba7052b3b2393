import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHandler, McpServer, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { z } from 'zod';

const TASKS = 'io.modelcontextprotocol/tasks';

interface Task {
  taskId: string;
  topic: string;
  status: 'working' | 'completed' | 'failed' | 'cancelled';
  createdAt: string;
  lastUpdatedAt: string;
}

/** A 2026-07-28 upstream with the tasks extension (SEP-2663) and what it saw. */
export interface TasksUpstream {
  url: string;
  /** Tasks it made, in creation order. */
  tasks: Task[];
  /** Every JSON-RPC request: its method and whether its `_meta` client capabilities declared the tasks extension. */
  seen: Array<{ method: string; declaredTasks: boolean }>;
  /** Task ids a tasks/cancel reached. */
  cancels: string[];
  /** Completes the task of `topic`. */
  finish(topic: string): void;
  close(): Promise<void>;
}

/**
 * An SDK v2 server (`@modelcontextprotocol/server`, 2026-07-28 only) whose `research` tool
 * answers with a task when the request declares the tasks extension and at once otherwise, as
 * the extension lets a server decide per request. tasks/get inlines a completed task's result;
 * tasks/cancel ends it. The store is outside the per-request server: the upstream is stateless.
 */
export async function startTasksUpstream(): Promise<TasksUpstream> {
  const tasks = new Map<string, Task>();
  const state: TasksUpstream = {
    url: '',
    tasks: [],
    seen: [],
    cancels: [],
    finish: (topic) => {
      const task = state.tasks.find((t) => t.topic === topic);
      if (!task) throw new Error(`no task for ${topic}`);
      task.status = 'completed';
      task.lastUpdatedAt = new Date().toISOString();
    },
    close: async () => undefined,
  };
  const view = (t: Task) => ({
    taskId: t.taskId,
    status: t.status,
    createdAt: t.createdAt,
    lastUpdatedAt: t.lastUpdatedAt,
    ttlMs: 120_000,
    pollIntervalMs: 100,
  });
  const handler = createMcpHandler(
    () => {
      const server = new McpServer({ name: 'lab', version: '2.0.0' }, { capabilities: { extensions: { [TASKS]: {} } } });
      server.registerTool(
        'research',
        {
          description: 'Researches a topic, in the background when the caller takes tasks',
          inputSchema: z.object({ topic: z.string() }),
          annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
        },
        async ({ topic }, ctx) => {
          const envelope = ctx.mcpReq.envelope as Record<string, { extensions?: Record<string, unknown> } | undefined> | undefined;
          const caps = envelope?.['io.modelcontextprotocol/clientCapabilities'];
          if (!caps?.extensions?.[TASKS]) return { content: [{ type: 'text', text: `quick note on ${topic}` }] };
          const now = new Date().toISOString();
          const task: Task = {
            taskId: `lab-${randomBytes(6).toString('hex')}`,
            topic,
            status: 'working',
            createdAt: now,
            lastUpdatedAt: now,
          };
          tasks.set(task.taskId, task);
          state.tasks.push(task);
          return { resultType: 'task', ...view(task) } as never;
        },
      );
      const byId = z.object({ taskId: z.string() }).passthrough();
      const find = (taskId: string): Task => {
        const task = tasks.get(taskId);
        if (!task) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Task not found: ${taskId}`);
        return task;
      };
      server.server.setRequestHandler('tasks/get', { params: byId }, async ({ taskId }) => {
        const task = find(taskId);
        return {
          ...view(task),
          ...(task.status === 'completed'
            ? { result: { content: [{ type: 'text', text: `report on ${task.topic}` }], resultType: 'complete' } }
            : {}),
        } as never;
      });
      server.server.setRequestHandler('tasks/cancel', { params: byId }, async ({ taskId }) => {
        const task = find(taskId);
        state.cancels.push(taskId);
        task.status = 'cancelled';
        task.lastUpdatedAt = new Date().toISOString();
        return {} as never;
      });
      return server;
    },
    { legacy: 'reject' },
  );
  const http: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = Buffer.concat(chunks);
        if (req.method === 'POST' && body.length > 0) {
          const parsed = JSON.parse(body.toString('utf8')) as {
            method?: string;
            params?: { _meta?: Record<string, { extensions?: Record<string, unknown> }> };
          };
          const declared = parsed.params?._meta?.['io.modelcontextprotocol/clientCapabilities']?.extensions?.[TASKS] !== undefined;
          if (typeof parsed.method === 'string') state.seen.push({ method: parsed.method, declaredTasks: declared });
        }
        const headers = new Headers();
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
        const response = await handler.fetch(
          new Request(`http://127.0.0.1${req.url ?? '/'}`, { method: req.method, headers, ...(body.length > 0 ? { body } : {}) }),
        );
        res.writeHead(response.status, Object.fromEntries(response.headers.entries()));
        if (response.body) for await (const chunk of response.body) res.write(chunk);
        res.end();
      })().catch(() => {
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  state.url = `http://localhost:${(http.address() as AddressInfo).port}/mcp`;
  state.close = async () => {
    await handler.close().catch(() => undefined);
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  };
  return state;
}
