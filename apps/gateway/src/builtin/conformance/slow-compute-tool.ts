import { Tool, type ToolContext, type ToolDefinition } from '@switchboard/catalog';
import { pause } from './pause';

/**
 * Tasks extension fixture: sleeps `seconds` then answers. With the extension declared, a call
 * that outlives the task threshold becomes a task (`seconds: 0` answers at once); a
 * `tasks/cancel` aborts the sleep and the task settles as `cancelled`.
 */
export class SlowComputeTool extends Tool {
  static override readonly definition: ToolDefinition = {
    name: 'slow_compute',
    description: 'Sleeps for `seconds` seconds (at most 300), then reports the label. Long calls become tasks.',
    inputSchema: {
      type: 'object',
      properties: { seconds: { type: 'number', minimum: 0, maximum: 300 }, label: { type: 'string', maxLength: 200 } },
      required: ['seconds'],
    },
    taskSupport: 'optional',
  };

  static override async payload(args: Record<string, unknown>, ctx: ToolContext): Promise<string> {
    const seconds = Number(args.seconds);
    await pause(seconds * 1000, ctx.signal);
    return `Computed ${typeof args.label === 'string' ? args.label : 'result'} after ${seconds} s`;
  }
}
