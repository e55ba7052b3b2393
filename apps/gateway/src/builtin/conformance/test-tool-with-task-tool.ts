import { Tool, type InputRequired, type ToolContext, type ToolDefinition } from '@switchboard/catalog';
import { NO_ARGS } from './fixture-media';
import { pause } from './pause';
import { acceptedContent, elicit, requireCapabilities } from './input-requests';
import { statelessRefusal } from './stateless-refusal';

const NAME_SCHEMA = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };

/**
 * Tasks extension fixture (`tasks-mrtr-composition`): a required-task tool that first asks
 * for `user_name` through a synchronous MRTR round (answered before any task exists), then
 * works a second on it, so the final round becomes a task whose result greets that name.
 */
export class TestToolWithTaskTool extends Tool {
  static override readonly definition: ToolDefinition = {
    name: 'test_tool_with_task',
    description: 'Asks for a name (MRTR), then greets it from a task.',
    inputSchema: { ...NO_ARGS },
    taskSupport: 'required',
  };

  static override async payload(_args: Record<string, unknown>, ctx: ToolContext): Promise<string | InputRequired> {
    if (!ctx.input) throw statelessRefusal('test_tool_with_task', 'elicitation/create');
    const request = elicit('What is your name?', NAME_SCHEMA);
    requireCapabilities(ctx, [request]);
    const name = acceptedContent(ctx, 'user_name')?.name;
    if (typeof name !== 'string') return Tool.inputRequired({ user_name: request });
    await pause(1_000, ctx.signal);
    return `Hello, ${name}! (from a task)`;
  }
}
