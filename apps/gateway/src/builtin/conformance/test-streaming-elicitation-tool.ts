import { Tool, type InputRequired, type ToolContext, type ToolDefinition } from '@switchboard/catalog';
import { NO_ARGS } from './fixture-media';
import { acceptedContent, elicit, requireCapabilities } from './input-requests';
import { statelessRefusal } from './stateless-refusal';

/**
 * `server-stateless` (no independent requests on a response stream): a tool that needs
 * elicitation answers with an InputRequiredResult, never with an `elicitation/create` request
 * on its SSE stream.
 */
export class TestStreamingElicitationTool extends Tool {
  static override readonly definition: ToolDefinition = {
    name: 'test_streaming_elicitation',
    description: 'Needs user input mid-call; asks through an InputRequiredResult, never a request on the stream.',
    inputSchema: { ...NO_ARGS },
  };

  static override payload(_args: Record<string, unknown>, ctx: ToolContext): string | InputRequired {
    if (!ctx.input) throw statelessRefusal('test_streaming_elicitation', 'elicitation/create');
    const request = elicit('Continue?', { type: 'object', properties: { proceed: { type: 'boolean' } }, required: ['proceed'] });
    requireCapabilities(ctx, [request]);
    const answer = acceptedContent(ctx, 'proceed');
    return answer === undefined ? Tool.inputRequired({ proceed: request }) : `proceed=${String(answer.proceed)}`;
  }
}
