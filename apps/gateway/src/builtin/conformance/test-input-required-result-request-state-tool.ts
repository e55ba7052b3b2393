import { Tool, type InputRequired, type ToolContext, type ToolDefinition } from '@switchboard/catalog';
import { NO_ARGS } from './fixture-media';
import { acceptedContent, elicit, requireCapabilities } from './input-requests';
import { openState, sealState } from './request-state';
import { statelessRefusal } from './stateless-refusal';

const TOOL = 'test_input_required_result_request_state';
const CONFIRM_SCHEMA = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] };

/** `input-required-result-request-state`: round 2 must echo the sealed requestState of round 1 ("state-ok"). */
export class TestInputRequiredResultRequestStateTool extends Tool {
  static override readonly definition: ToolDefinition = {
    name: TOOL,
    description: 'Asks for a confirmation with a sealed requestState and checks the state on the retry.',
    inputSchema: { ...NO_ARGS },
  };

  static override payload(_args: Record<string, unknown>, ctx: ToolContext): string | InputRequired {
    if (!ctx.input) throw statelessRefusal(TOOL, 'elicitation/create');
    const request = elicit('Please confirm', CONFIRM_SCHEMA);
    requireCapabilities(ctx, [request]);
    const state = ctx.input.requestState === undefined ? undefined : openState(ctx, ctx.input.requestState);
    const answer = acceptedContent(ctx, 'confirm');
    if (state?.tool !== TOOL || answer === undefined) return Tool.inputRequired({ confirm: request }, sealState(ctx, { tool: TOOL, round: 1 }));
    return `state-ok: confirmed=${String(answer.ok)}`;
  }
}
