import { Tool, type ToolContext, type ToolDefinition } from '@switchboard/catalog';

/** Counts down, reporting progress at each step: shows SSE responses with progress notifications. */
export class CountDownTool extends Tool {
  static override readonly definition: ToolDefinition = {
    name: 'count_down',
    title: 'Count down',
    description: 'Counts down from `from` to zero, sending a progress notification at every step.',
    inputSchema: {
      type: 'object',
      properties: {
        from: { type: 'integer', minimum: 1, maximum: 20, description: 'Where to start' },
        stepMs: { type: 'integer', minimum: 0, maximum: 1000, default: 50, description: 'Pause between steps in ms' },
      },
      required: ['from'],
      additionalProperties: false,
    },
    annotations: { title: 'Count down', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  };

  static override async payload(args: Record<string, unknown>, ctx: ToolContext): Promise<{ counted: number }> {
    const from = args.from as number;
    const stepMs = (args.stepMs as number | undefined) ?? 50;
    for (let i = from; i > 0; i--) {
      ctx.progress(from - i + 1, from, `${i - 1} to go`);
      ctx.log('debug', { remaining: i - 1 }, 'count_down');
      if (stepMs > 0) await new Promise((resolve) => setTimeout(resolve, stepMs));
      if (ctx.signal.aborted) break;
    }
    return { counted: from };
  }
}
