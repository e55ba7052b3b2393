import {
  CompiledCatalog,
  Tool,
  bundleHandlers,
  snapshotFromBundle,
  type LocalBundle,
  type ToolContext,
  type ToolDefinition,
} from '@switchboard/catalog';
import { McpError, surfaceProfiles, type RequestContext } from '@switchboard/protocol';
import { RequestDispatcher } from './dispatch-request';
import type { McpTarget } from './mcp-target';
import { TASKS_EXTENSION, TaskManager } from './task-manager';

/** Waits until its signal aborts (a call that outlives any threshold). */
class HangTool extends Tool {
  static override readonly definition: ToolDefinition = { name: 'hang', inputSchema: { type: 'object' }, taskSupport: 'optional' };
  static override async payload(_args: Record<string, unknown>, ctx: ToolContext): Promise<string> {
    await new Promise((r) => ctx.signal.addEventListener('abort', r, { once: true }));
    return 'stopped';
  }
}
class MustTaskTool extends Tool {
  static override readonly definition: ToolDefinition = { name: 'must', inputSchema: { type: 'object' }, taskSupport: 'required' };
  static override payload(): string {
    return 'quick';
  }
}
class PlainTool extends Tool {
  static override readonly definition: ToolDefinition = { name: 'plain', inputSchema: { type: 'object' } };
  static override payload(): string {
    return 'plain';
  }
}

const surfaces = surfaceProfiles();
function targetOf(bundle: LocalBundle): McpTarget {
  return {
    tenantId: 't1',
    catalog: CompiledCatalog.build(snapshotFromBundle('t1', bundle), { surfaces }),
    surfaces,
    allowedOrigins: [],
    allowedHosts: [],
  };
}
const withTasks: LocalBundle = { id: 'w', server: { name: 'w', version: '1' }, tools: [HangTool, MustTaskTool, PlainTool] };
const without: LocalBundle = { id: 'p', server: { name: 'p', version: '1' }, tools: [PlainTool] };
const declared = { extensions: { [TASKS_EXTENSION]: {} } };
const modern = (clientCapabilities: Record<string, unknown>): RequestContext => ({
  era: 'modern',
  protocolVersion: '2026-07-28',
  clientCapabilities,
});

async function send(
  bundle: LocalBundle,
  tasks: TaskManager | undefined,
  method: string,
  params: Record<string, unknown>,
  context: RequestContext,
): Promise<Record<string, unknown>> {
  const dispatcher = new RequestDispatcher({ handlers: bundleHandlers(bundle), upstream: undefined, tasks });
  const body = await dispatcher.dispatch({
    message: { jsonrpc: '2.0', id: 1, method, params },
    context,
    target: targetOf(bundle),
    surfaceId: 'generic',
    sink: undefined,
    signal: new AbortController().signal,
  });
  return JSON.parse(body.toString()) as Record<string, unknown>;
}

describe('RequestDispatcher with the tasks extension', () => {
  it('advertises the extension in server/discover only when a tool can become a task (never a v1 capabilities.tasks)', async () => {
    const tasks = new TaskManager();
    const on = (await send(withTasks, tasks, 'server/discover', {}, modern({}))).result as { capabilities: Record<string, unknown> };
    expect(on.capabilities.extensions).toEqual({ [TASKS_EXTENSION]: {} });
    expect(on.capabilities).not.toHaveProperty('tasks');
    const off = (await send(without, tasks, 'server/discover', {}, modern({}))).result as { capabilities: Record<string, unknown> };
    expect(off.capabilities).not.toHaveProperty('extensions');
  });

  it('never publishes taskSupport in tools/list', async () => {
    const listed = JSON.stringify((await send(withTasks, new TaskManager(), 'tools/list', {}, modern({}))).result);
    expect(listed).toContain('"hang"');
    expect(listed).not.toContain('taskSupport');
  });

  it('a slow call of a declaring client is a CreateTaskResult (resultType task); tasks/get and tasks/cancel answer resultType complete', async () => {
    const tasks = new TaskManager({ taskAfterMs: 5 });
    const created = (await send(withTasks, tasks, 'tools/call', { name: 'hang', arguments: {} }, modern(declared))).result as Record<
      string,
      unknown
    >;
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });
    const got = (await send(withTasks, tasks, 'tasks/get', { taskId: created.taskId }, modern(declared))).result as Record<string, unknown>;
    expect(got).toMatchObject({ resultType: 'complete', taskId: created.taskId, status: 'working' });
    const ack = (await send(withTasks, tasks, 'tasks/cancel', { taskId: created.taskId }, modern(declared))).result as Record<
      string,
      unknown
    >;
    expect(ack.resultType).toBe('complete');
    expect(ack).not.toHaveProperty('taskId');
  });

  it('without the extension: an optional-task tool answers on its request, a required one is -32021, tasks/* are -32021', async () => {
    const tasks = new TaskManager({ taskAfterMs: 5 });
    await expect(send(withTasks, tasks, 'tools/call', { name: 'must', arguments: {} }, modern({}))).rejects.toMatchObject({
      code: -32021,
      httpStatus: 400,
    });
    await expect(send(withTasks, tasks, 'tasks/get', { taskId: 'x' }, modern({}))).rejects.toBeInstanceOf(McpError);
    const plain = (await send(withTasks, tasks, 'tools/call', { name: 'plain', arguments: {} }, modern(declared))).result as Record<
      string,
      unknown
    >;
    expect(plain).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'plain' }] });
    // A legacy request has no tasks: the required tool is served on its request.
    const legacy = (
      await send(withTasks, tasks, 'tools/call', { name: 'must', arguments: {} }, { era: 'legacy', protocolVersion: '2025-11-25' })
    ).result as Record<string, unknown>;
    expect(legacy).toMatchObject({ content: [{ type: 'text', text: 'quick' }] });
  });

  it('without a task manager, tasks/* stay unknown methods', async () => {
    await expect(send(withTasks, undefined, 'tasks/get', { taskId: 'x' }, modern(declared))).rejects.toMatchObject({ code: -32601 });
  });
});
