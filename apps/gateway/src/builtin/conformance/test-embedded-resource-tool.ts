import { Tool, type ToolContent, type ToolDefinition } from '@switchboard/catalog';
import { NO_ARGS } from './fixture-media';

/** `tools-call-embedded-resource`: one embedded text resource. */
export class TestEmbeddedResourceTool extends Tool {
  static override readonly definition: ToolDefinition = {
    name: 'test_embedded_resource',
    description: 'Returns an embedded resource content block.',
    inputSchema: { ...NO_ARGS },
  };

  static override payload(): ToolContent {
    return Tool.content([
      {
        type: 'resource',
        resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' },
      },
    ]);
  }
}
