import { Tool, type ToolDefinition } from '@switchboard/catalog';

/**
 * `http-custom-header-server-validation` (SEP-2243): `region` is mirrored into the
 * `Mcp-Param-Region` header; the transport refuses a modern call whose header disagrees with
 * the body (400 + −32020) before the tool runs.
 */
export class TestHeaderParamsTool extends Tool {
  static override readonly definition: ToolDefinition = {
    name: 'test_header_params',
    description: 'Echoes the region it was called for; region is mirrored in the Mcp-Param-Region header (SEP-2243).',
    inputSchema: {
      type: 'object',
      properties: {
        region: { type: 'string', description: 'Region to route the call to', 'x-mcp-header': 'Region' },
        query: { type: 'string', description: 'Free text (not mirrored)' },
      },
      required: ['region'],
    },
  };

  static override payload(args: Record<string, unknown>): string {
    return `region=${String(args.region)}`;
  }
}
