import {
  CompiledCatalog,
  Tool,
  ToolError,
  bundleHandlers,
  snapshotFromBundle,
  type LocalBundle,
  type ToolDefinition,
} from '@switchboard/catalog';
import { surfaceProfiles, type RequestContext } from '@switchboard/protocol';
import { RequestDispatcher } from './dispatch-request';
import type { McpTarget } from './mcp-target';

class DivideTool extends Tool {
  static override readonly definition: ToolDefinition = {
    name: 'divide',
    description: 'Divides a by b.',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  };
  static override payload(args: Record<string, unknown>): { quotient: number } {
    if (args.b === 0) throw new ToolError('b must not be zero');
    return { quotient: (args.a as number) / (args.b as number) };
  }
}

const bundle: LocalBundle = { id: 'math', server: { name: 'math', version: '1' }, tools: [DivideTool] };
const surfaces = surfaceProfiles();
const target: McpTarget = {
  tenantId: 't1',
  catalog: CompiledCatalog.build(snapshotFromBundle('t1', bundle), { surfaces }),
  surfaces,
  allowedOrigins: [],
  allowedHosts: [],
};
const context: RequestContext = { era: 'legacy', protocolVersion: '2025-11-25' };
const dispatcher = new RequestDispatcher({ handlers: bundleHandlers(bundle), upstream: undefined });

async function call(args: Record<string, unknown>): Promise<{ body: string; toolErrors: number }> {
  let toolErrors = 0;
  const body = await dispatcher.dispatch({
    message: { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'divide', arguments: args } },
    context,
    target,
    surfaceId: 'generic',
    sink: undefined,
    signal: new AbortController().signal,
    toolErrors: { toolFailed: () => toolErrors++ },
  });
  return { body: body.toString(), toolErrors };
}

describe('RequestDispatcher tools/call outcome', () => {
  it('reports a tool that answered isError (for spans and metrics)', async () => {
    const { body, toolErrors } = await call({ a: 1, b: 0 });
    expect(JSON.parse(body).result).toMatchObject({ isError: true });
    expect(toolErrors).toBe(1);
  });

  it('reports nothing for a successful call, whatever its content says', async () => {
    const { body, toolErrors } = await call({ a: 6, b: 3 });
    expect(JSON.parse(body).result.structuredContent).toBeUndefined();
    expect(JSON.parse(body).result.content[0].text).toContain('"quotient":2');
    expect(toolErrors).toBe(0);
  });

  it('counts invalid arguments as a tool error too', async () => {
    const { body, toolErrors } = await call({ a: 'x', b: 1 });
    expect(JSON.parse(body).result.isError).toBe(true);
    expect(toolErrors).toBe(1);
  });
});
