import { Tool, type InputRequest, type InputRequired, type ToolContext, type ToolDefinition } from '@switchboard/catalog';
import { NO_ARGS } from './fixture-media';
import { canAsk, elicit, listRoots, sample } from './input-requests';
import { statelessRefusal } from './stateless-refusal';

/** `input-required-result-capability-check`: asks only for what the client declared it can answer. */
export class TestInputRequiredResultCapabilitiesTool extends Tool {
  static override readonly definition: ToolDefinition = {
    name: 'test_input_required_result_capabilities',
    description: 'Asks, through an InputRequiredResult, only for inputs whose client capability was declared.',
    inputSchema: { ...NO_ARGS },
  };

  static override payload(_args: Record<string, unknown>, ctx: ToolContext): string | InputRequired {
    const input = ctx.input;
    if (!input) throw statelessRefusal('test_input_required_result_capabilities', 'elicitation/create');
    const wanted: Record<string, InputRequest> = {
      user_name: elicit('What is your name?', { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }),
      greeting: sample('Generate a greeting', 50),
      client_roots: listRoots(),
    };
    const askable = Object.fromEntries(Object.entries(wanted).filter(([, r]) => canAsk(ctx, r)));
    const open = Object.fromEntries(Object.entries(askable).filter(([key]) => input.responses[key] === undefined));
    if (Object.keys(open).length > 0) return Tool.inputRequired(open);
    return `Answered: ${Object.keys(askable).join(', ') || '(the client declared none of sampling, elicitation, roots)'}`;
  }
}
