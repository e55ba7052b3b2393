import { Tool, type InputRequired, type ToolContext, type ToolDefinition } from '@switchboard/catalog';
import { NO_ARGS } from './fixture-media';
import { pause } from './pause';
import { acceptedContent, elicit, requireCapabilities } from './input-requests';
import { statelessRefusal } from './stateless-refusal';

const SCHEMA = { type: 'object', properties: { name: { type: 'string' }, confirm: { type: 'boolean' } } };

/**
 * Tasks extension fixture (partial fulfilment): after half a second asks two elicitations at
 * once; the task stays `input_required` until both are answered, then completes.
 */
export class MultiInputTool extends Tool {
  static override readonly definition: ToolDefinition = {
    name: 'multi_input',
    description: 'Asks two questions at once, then reports both answers.',
    inputSchema: { ...NO_ARGS },
    taskSupport: 'optional',
  };

  static override async payload(_args: Record<string, unknown>, ctx: ToolContext): Promise<string | InputRequired> {
    if (!ctx.input) throw statelessRefusal('multi_input', 'elicitation/create');
    const requests = { first: elicit('First answer?', SCHEMA), second: elicit('Second answer?', SCHEMA) };
    requireCapabilities(ctx, Object.values(requests));
    const first = acceptedContent(ctx, 'first');
    const second = acceptedContent(ctx, 'second');
    if (first === undefined || second === undefined) {
      if (Object.keys(ctx.input.responses).length === 0) await pause(500, ctx.signal);
      return Tool.inputRequired(requests);
    }
    return `Got ${String(first.name)} and ${String(second.name)}`;
  }
}
