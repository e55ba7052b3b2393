import { Tool, type ToolContext, type ToolDefinition } from '@switchboard/catalog';
import { NO_ARGS } from './fixture-media';
import { pause } from './pause';

/** Gap between the log messages: short, but long enough that they are separate SSE events. */
const STEP_MS = 20;

/**
 * `tools-call-with-logging`: three `notifications/message` (info) during the call, on the
 * response's SSE stream. Legacy clients get them (a stateless server remembers no
 * `logging/setLevel`); modern clients only when their `_meta` asks for a log level.
 */
export class TestToolWithLoggingTool extends Tool {
  static override readonly definition: ToolDefinition = {
    name: 'test_tool_with_logging',
    description: 'Sends three log notifications while it runs.',
    inputSchema: { ...NO_ARGS },
  };

  static override async payload(_args: Record<string, unknown>, ctx: ToolContext): Promise<string> {
    const messages = ['Tool execution started', 'Tool processing data', 'Tool execution completed'];
    for (const [i, message] of messages.entries()) {
      if (i > 0) await pause(STEP_MS, ctx.signal);
      ctx.log('info', message, 'test_tool_with_logging');
    }
    return 'Tool with logging executed successfully';
  }
}
