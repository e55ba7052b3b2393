import { Tool, type InputRequired, type ToolContext, type ToolDefinition } from '@switchboard/catalog';
import { NO_ARGS } from './fixture-media';
import { acceptedContent, elicit, listRoots, requireCapabilities, rootsOf, sample, sampledText } from './input-requests';
import { openState, sealState } from './request-state';
import { statelessRefusal } from './stateless-refusal';

const TOOL = 'test_input_required_result_multiple_inputs';

/** `input-required-result-multiple-input-requests`: elicitation, sampling and roots in one round. */
export class TestInputRequiredResultMultipleInputsTool extends Tool {
  static override readonly definition: ToolDefinition = {
    name: TOOL,
    description: 'Asks for a name, a sampled greeting and the client roots in one InputRequiredResult.',
    inputSchema: { ...NO_ARGS },
  };

  static override payload(_args: Record<string, unknown>, ctx: ToolContext): string | InputRequired {
    if (!ctx.input) throw statelessRefusal(TOOL, 'elicitation/create');
    const requests = {
      user_name: elicit('What is your name?', { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }),
      greeting: sample('Generate a greeting', 50),
      client_roots: listRoots(),
    };
    requireCapabilities(ctx, Object.values(requests));
    if (ctx.input.requestState !== undefined) openState(ctx, ctx.input.requestState);
    const name = acceptedContent(ctx, 'user_name')?.name;
    const greeting = sampledText(ctx, 'greeting');
    const roots = rootsOf(ctx, 'client_roots');
    if (typeof name !== 'string' || greeting === undefined || roots === undefined) {
      return Tool.inputRequired(requests, sealState(ctx, { tool: TOOL, round: 1 }));
    }
    return `${greeting} ${name}; roots: ${roots.map((r) => r.uri).join(', ') || '(none)'}`;
  }
}
