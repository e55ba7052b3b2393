import { Tool, type InputRequired, type ToolContext, type ToolDefinition } from '@switchboard/catalog';
import { requireCapabilities, sample, sampledText } from './input-requests';
import { statelessRefusal } from './stateless-refusal';

/**
 * `tools-call-sampling`: asks the client to sample a completion for `prompt`. Legacy requests
 * fail fast (no server→client requests on a stateless server); modern ones use MRTR.
 */
export class TestSamplingTool extends Tool {
  static override readonly definition: ToolDefinition = {
    name: 'test_sampling',
    description: 'Asks the client to sample an LLM completion for the prompt (MRTR at 2026-07-28; unavailable on legacy requests).',
    inputSchema: {
      type: 'object',
      properties: { prompt: { type: 'string', description: 'The prompt to send to the LLM' } },
      required: ['prompt'],
      additionalProperties: false,
    },
  };

  static override payload(args: Record<string, unknown>, ctx: ToolContext): string | InputRequired {
    if (!ctx.input) throw statelessRefusal('test_sampling', 'sampling/createMessage');
    const request = sample(args.prompt as string, 100);
    requireCapabilities(ctx, [request]);
    const text = sampledText(ctx, 'completion');
    return text === undefined ? Tool.inputRequired({ completion: request }) : `LLM response: ${text}`;
  }
}
