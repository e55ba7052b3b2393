import { Tool, type InputRequired, type ToolContext, type ToolDefinition } from '@switchboard/catalog';
import { NO_ARGS } from './fixture-media';
import { requireCapabilities, sample, sampledText } from './input-requests';
import { statelessRefusal } from './stateless-refusal';

/** `input-required-result-basic-sampling`: asks the client's LLM a question under `capital_question`. */
export class TestInputRequiredResultSamplingTool extends Tool {
  static override readonly definition: ToolDefinition = {
    name: 'test_input_required_result_sampling',
    description: 'Asks the client to sample an answer through an InputRequiredResult, then returns it.',
    inputSchema: { ...NO_ARGS },
  };

  static override payload(_args: Record<string, unknown>, ctx: ToolContext): string | InputRequired {
    if (!ctx.input) throw statelessRefusal('test_input_required_result_sampling', 'sampling/createMessage');
    const request = sample('What is the capital of France?', 100);
    requireCapabilities(ctx, [request]);
    const text = sampledText(ctx, 'capital_question');
    return text === undefined ? Tool.inputRequired({ capital_question: request }) : `The model answered: ${text}`;
  }
}
