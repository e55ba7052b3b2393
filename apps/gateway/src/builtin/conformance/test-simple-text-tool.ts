import { Tool, type ToolDefinition } from '@switchboard/catalog';
import { NO_ARGS } from './fixture-media';

/** `tools-call-simple-text`: one text block. */
export class TestSimpleTextTool extends Tool {
  static override readonly definition: ToolDefinition = {
    name: 'test_simple_text',
    description: 'Returns a single text content block.',
    inputSchema: { ...NO_ARGS },
  };

  static override payload(): string {
    return 'This is a simple text response for testing.';
  }
}
