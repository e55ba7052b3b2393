import { Tool, type ToolDefinition } from '@switchboard/catalog';

/** Tasks extension fixture (`tasks-*`): a sync-only tool, never a task. */
export class GreetTool extends Tool {
  static override readonly definition: ToolDefinition = {
    name: 'greet',
    description: 'Greets someone by name (synchronous; never becomes a task).',
    inputSchema: { type: 'object', properties: { name: { type: 'string', maxLength: 200 } }, required: ['name'] },
  };

  static override payload(args: Record<string, unknown>): string {
    return `Hello, ${String(args.name)}!`;
  }
}
