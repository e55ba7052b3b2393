import { Tool, type ToolContext, type ToolDefinition } from '@switchboard/catalog';
import { NO_ARGS } from './fixture-media';

/**
 * `server-stateless` (no logs without a log level): logs at info; the transport drops the
 * notifications unless the request's `_meta` asked for that level.
 */
export class TestLoggingTool extends Tool {
  static override readonly definition: ToolDefinition = {
    name: 'test_logging_tool',
    description: 'Emits log messages; clients receive them only when they ask for a log level.',
    inputSchema: { ...NO_ARGS },
  };

  static override payload(_args: Record<string, unknown>, ctx: ToolContext): string {
    ctx.log('info', 'test_logging_tool started', 'test_logging_tool');
    ctx.log('info', 'test_logging_tool finished', 'test_logging_tool');
    return 'Logged two messages (sent only if the request asked for a log level).';
  }
}
