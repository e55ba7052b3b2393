import { Tool, type ToolContext, type ToolDefinition } from '@switchboard/catalog';
import { ErrorCode, McpError } from '@switchboard/protocol';
import { NO_ARGS } from './fixture-media';
import { pause } from './pause';

/** Tasks extension fixture: runs about a second, then fails with a JSON-RPC error, so its task ends `failed` with `error`. */
export class ProtocolErrorJobTool extends Tool {
  static override readonly definition: ToolDefinition = {
    name: 'protocol_error_job',
    description: 'Runs about a second, then fails with a protocol (JSON-RPC) error.',
    inputSchema: { ...NO_ARGS },
    taskSupport: 'optional',
  };

  static override async payload(_args: Record<string, unknown>, ctx: ToolContext): Promise<never> {
    await pause(1_000, ctx.signal);
    throw new McpError(ErrorCode.InternalError, 'protocol_error_job failed on purpose (a protocol error)');
  }
}
