import { Tool, type InputRequired, type ToolContext, type ToolDefinition } from '@switchboard/catalog';
import { NO_ARGS } from './fixture-media';
import { acceptedContent, elicit, requireCapabilities } from './input-requests';
import { openState, sealState } from './request-state';
import { statelessRefusal } from './stateless-refusal';

const TOOL = 'test_input_required_result_tampered_state';

/** `input-required-result-tampered-state`: an altered requestState is refused with −32602. */
export class TestInputRequiredResultTamperedStateTool extends Tool {
  static override readonly definition: ToolDefinition = {
    name: TOOL,
    description: 'Issues an HMAC-sealed requestState and rejects a retry whose state was altered.',
    inputSchema: { ...NO_ARGS },
  };

  static override payload(_args: Record<string, unknown>, ctx: ToolContext): string | InputRequired {
    if (!ctx.input) throw statelessRefusal(TOOL, 'elicitation/create');
    const request = elicit('Please confirm', { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] });
    requireCapabilities(ctx, [request]);
    const state = ctx.input.requestState === undefined ? undefined : openState(ctx, ctx.input.requestState);
    const answer = acceptedContent(ctx, 'confirm');
    if (state?.tool !== TOOL || answer === undefined) return Tool.inputRequired({ confirm: request }, sealState(ctx, { tool: TOOL }));
    return 'state verified';
  }
}
