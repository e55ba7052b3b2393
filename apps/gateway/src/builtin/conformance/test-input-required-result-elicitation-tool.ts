import { Tool, type InputRequired, type ToolContext, type ToolDefinition } from '@switchboard/catalog';
import { NO_ARGS } from './fixture-media';
import { acceptedContent, elicit, requireCapabilities } from './input-requests';
import { statelessRefusal } from './stateless-refusal';

const NAME_SCHEMA = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };

/**
 * MRTR basics (`input-required-result-basic-elicitation`, `-result-type`, `-missing-input-response`,
 * `-ignore-extra-params`, `-validate-input`): asks for a name under `user_name` until a valid
 * accepted answer comes back (a missing, wrong-key or malformed answer is asked for again;
 * unknown extra keys are ignored), then greets.
 */
export class TestInputRequiredResultElicitationTool extends Tool {
  static override readonly definition: ToolDefinition = {
    name: 'test_input_required_result_elicitation',
    description: 'Asks the user for their name through an InputRequiredResult, then greets them.',
    inputSchema: { ...NO_ARGS },
  };

  static override payload(_args: Record<string, unknown>, ctx: ToolContext): string | InputRequired {
    if (!ctx.input) throw statelessRefusal('test_input_required_result_elicitation', 'elicitation/create');
    const request = elicit('What is your name?', NAME_SCHEMA);
    requireCapabilities(ctx, [request]);
    const name = acceptedContent(ctx, 'user_name')?.name;
    return typeof name === 'string' ? `Hello, ${name}!` : Tool.inputRequired({ user_name: request });
  }
}
