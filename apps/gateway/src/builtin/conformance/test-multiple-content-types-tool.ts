import { Tool, type ToolContent, type ToolDefinition } from '@switchboard/catalog';
import { NO_ARGS, PNG_1X1_BASE64 } from './fixture-media';

/** `tools-call-mixed-content`: text, image and an embedded resource in one result. */
export class TestMultipleContentTypesTool extends Tool {
  static override readonly definition: ToolDefinition = {
    name: 'test_multiple_content_types',
    description: 'Returns text, image and embedded resource content blocks.',
    inputSchema: { ...NO_ARGS },
  };

  static override payload(): ToolContent {
    return Tool.content([
      { type: 'text', text: 'Multiple content types test:' },
      { type: 'image', data: PNG_1X1_BASE64, mimeType: 'image/png' },
      {
        type: 'resource',
        resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: JSON.stringify({ test: 'data', value: 123 }) },
      },
    ]);
  }
}
