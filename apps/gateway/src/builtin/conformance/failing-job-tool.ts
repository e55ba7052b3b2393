import { Tool, ToolError, type ToolContext, type ToolDefinition } from '@switchboard/catalog';
import { NO_ARGS } from './fixture-media';
import { pause } from './pause';

/**
 * Tasks extension fixture: a required-task tool (−32021 for a client without the extension)
 * whose work reports a tool error after about a second, so its task ends `completed` with
 * `result.isError: true` (not `failed`, which is for protocol errors).
 */
export class FailingJobTool extends Tool {
  static override readonly definition: ToolDefinition = {
    name: 'failing_job',
    description: 'Runs about a second, then fails with a tool error (needs the tasks extension).',
    inputSchema: { ...NO_ARGS },
    taskSupport: 'required',
  };

  static override async payload(_args: Record<string, unknown>, ctx: ToolContext): Promise<never> {
    await pause(1_000, ctx.signal);
    throw new ToolError('failing_job failed on purpose (a tool execution error)');
  }
}
