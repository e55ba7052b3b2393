import { InputRequired, Prompt, type PromptDefinition, type PromptMessage, type ToolContext } from '@switchboard/catalog';
import { ErrorCode, McpError } from '@switchboard/protocol';
import { acceptedContent, elicit, requireCapabilities } from './input-requests';

/** `input-required-result-non-tool-request`: a prompt that asks for context through an InputRequiredResult first. */
export class TestInputRequiredResultPrompt extends Prompt {
  static override readonly definition: PromptDefinition = {
    name: 'test_input_required_result_prompt',
    description: 'Asks the user for context (2026-07-28 InputRequiredResult), then builds the prompt from it',
  };

  static override messages(_args: Record<string, string>, ctx: ToolContext): PromptMessage[] | InputRequired {
    if (!ctx.input) {
      throw new McpError(ErrorCode.InvalidRequest, 'test_input_required_result_prompt needs input from the client, which only 2026-07-28 requests can carry');
    }
    const request = elicit('What context should the prompt use?', { type: 'object', properties: { context: { type: 'string' } }, required: ['context'] });
    requireCapabilities(ctx, [request]);
    const context = acceptedContent(ctx, 'user_context')?.context;
    if (typeof context !== 'string') return new InputRequired({ user_context: request });
    return [{ role: 'user', content: { type: 'text', text: `Use this context: ${context}` } }];
  }
}
