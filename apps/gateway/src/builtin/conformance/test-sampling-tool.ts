import { Tool, type ToolDefinition } from '@switchboard/catalog';
import { statelessRefusal } from './stateless-refusal';

/** `tools-call-sampling`: declared as the suite expects; fails fast because sampling needs a server→client request. */
export class TestSamplingTool extends Tool {
  static override readonly definition: ToolDefinition = {
    name: 'test_sampling',
    description: 'Asks the client to sample an LLM completion for the prompt (needs server-to-client requests; unavailable on this stateless server).',
    inputSchema: {
      type: 'object',
      properties: { prompt: { type: 'string', description: 'The prompt to send to the LLM' } },
      required: ['prompt'],
      additionalProperties: false,
    },
  };

  static override payload(): never {
    throw statelessRefusal('test_sampling', 'sampling/createMessage');
  }
}
