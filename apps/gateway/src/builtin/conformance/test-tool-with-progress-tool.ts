import { Tool, type ToolContext, type ToolDefinition } from '@switchboard/catalog';
import { NO_ARGS } from './fixture-media';
import { pause } from './pause';

const STEP_MS = 20;

/** `tools-call-with-progress`: progress 0, 50, 100 of 100 (sent only when the request has a `progressToken`). */
export class TestToolWithProgressTool extends Tool {
  static override readonly definition: ToolDefinition = {
    name: 'test_tool_with_progress',
    description: 'Reports progress 0/100, 50/100 and 100/100 while it runs.',
    inputSchema: { ...NO_ARGS },
  };

  static override async payload(_args: Record<string, unknown>, ctx: ToolContext): Promise<string> {
    for (const [i, progress] of [0, 50, 100].entries()) {
      if (i > 0) await pause(STEP_MS, ctx.signal);
      ctx.progress(progress, 100, `Completed step ${i + 1} of 3`);
    }
    return 'Tool with progress executed successfully';
  }
}
