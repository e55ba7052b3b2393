import { Tool, type InputRequired, type ToolContext, type ToolDefinition } from '@switchboard/catalog';
import { NO_ARGS } from './fixture-media';
import { acceptedContent, elicit, requireCapabilities } from './input-requests';
import { openState, sealState } from './request-state';
import { statelessRefusal } from './stateless-refusal';

const TOOL = 'test_input_required_result_multi_round';
const STEP1 = elicit('Step 1: What is your name?', { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] });
const STEP2 = elicit('Step 2: What is your favorite color?', { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] });

/**
 * `input-required-result-multi-round`: name, then colour, then done; what round 1 learnt
 * travels in the (sealed, evolving) requestState, not on the server.
 */
export class TestInputRequiredResultMultiRoundTool extends Tool {
  static override readonly definition: ToolDefinition = {
    name: TOOL,
    description: 'Asks for a name, then a favourite colour, over two InputRequiredResult rounds.',
    inputSchema: { ...NO_ARGS },
  };

  static override payload(_args: Record<string, unknown>, ctx: ToolContext): string | InputRequired {
    if (!ctx.input) throw statelessRefusal(TOOL, 'elicitation/create');
    requireCapabilities(ctx, [STEP1]);
    const state = ctx.input.requestState === undefined ? {} : openState(ctx, ctx.input.requestState);
    if (state.tool === TOOL && state.round === 2 && typeof state.name === 'string') {
      const color = acceptedContent(ctx, 'step2')?.color;
      if (typeof color === 'string') return `${state.name}'s favorite color is ${color}`;
      return Tool.inputRequired({ step2: STEP2 }, ctx.input.requestState);
    }
    const name = acceptedContent(ctx, 'step1')?.name;
    if (typeof name === 'string') return Tool.inputRequired({ step2: STEP2 }, sealState(ctx, { tool: TOOL, round: 2, name }));
    return Tool.inputRequired({ step1: STEP1 }, sealState(ctx, { tool: TOOL, round: 1 }));
  }
}
