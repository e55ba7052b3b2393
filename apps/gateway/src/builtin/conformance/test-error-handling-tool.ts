import { Tool, ToolError, type ToolDefinition } from '@switchboard/catalog';
import { NO_ARGS } from './fixture-media';

/** `tools-call-error`: a tool execution error (`isError: true` with a message), not a protocol error. */
export class TestErrorHandlingTool extends Tool {
  static override readonly definition: ToolDefinition = {
    name: 'test_error_handling',
    description: 'Always fails with a tool execution error.',
    inputSchema: { ...NO_ARGS },
  };

  static override payload(): never {
    throw new ToolError('This tool intentionally returns an error for testing');
  }
}
