import { Tool, type InputRequired, type ToolContext, type ToolDefinition } from '@switchboard/catalog';
import { NO_ARGS } from './fixture-media';
import { listRoots, requireCapabilities, rootsOf } from './input-requests';
import { statelessRefusal } from './stateless-refusal';

/** `input-required-result-basic-list-roots`: asks for the client's roots under `client_roots`, then lists them. */
export class TestInputRequiredResultListRootsTool extends Tool {
  static override readonly definition: ToolDefinition = {
    name: 'test_input_required_result_list_roots',
    description: "Asks for the client's roots through an InputRequiredResult, then lists them.",
    inputSchema: { ...NO_ARGS },
  };

  static override payload(_args: Record<string, unknown>, ctx: ToolContext): string | InputRequired {
    if (!ctx.input) throw statelessRefusal('test_input_required_result_list_roots', 'roots/list');
    const request = listRoots();
    requireCapabilities(ctx, [request]);
    const roots = rootsOf(ctx, 'client_roots');
    return roots === undefined ? Tool.inputRequired({ client_roots: request }) : `Client roots: ${roots.map((r) => r.uri).join(', ') || '(none)'}`;
  }
}
