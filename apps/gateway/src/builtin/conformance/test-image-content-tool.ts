import { Tool, type ToolContent, type ToolDefinition } from '@switchboard/catalog';
import { NO_ARGS, PNG_1X1_BASE64 } from './fixture-media';

/** `tools-call-image`: one image block (a 1×1 PNG). */
export class TestImageContentTool extends Tool {
  static override readonly definition: ToolDefinition = {
    name: 'test_image_content',
    description: 'Returns an image content block (a 1x1 PNG).',
    inputSchema: { ...NO_ARGS },
  };

  static override payload(): ToolContent {
    return Tool.content([{ type: 'image', data: PNG_1X1_BASE64, mimeType: 'image/png' }]);
  }
}
