import { Tool, type ToolDefinition } from '@switchboard/catalog';

/** Echoes its text back: the smallest round trip through the edge (also the bench's call workload). */
export class EchoTool extends Tool {
  static override readonly definition: ToolDefinition = {
    name: 'echo',
    title: 'Echo',
    description: 'Returns the text it is given, unchanged.',
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'string', maxLength: 10_000, description: 'Text to echo back' } },
      required: ['text'],
      additionalProperties: false,
    },
    outputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    annotations: { title: 'Echo', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  };

  static override payload(args: Record<string, unknown>): { text: string } {
    return { text: args.text as string };
  }
}
