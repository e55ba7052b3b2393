import { Tool, ToolError, type ToolDefinition } from '@switchboard/catalog';

/** Adds numbers exactly (as decimals), refusing results outside the safe range. */
export class AddNumbersTool extends Tool {
  static override readonly definition: ToolDefinition = {
    name: 'add_numbers',
    title: 'Add numbers',
    description: 'Adds a list of numbers and returns the sum.',
    inputSchema: {
      type: 'object',
      properties: { numbers: { type: 'array', items: { type: 'number' }, minItems: 1, maxItems: 1000, description: 'Numbers to add' } },
      required: ['numbers'],
      additionalProperties: false,
    },
    outputSchema: { type: 'object', properties: { sum: { type: 'number' }, count: { type: 'integer' } }, required: ['sum', 'count'] },
    annotations: { title: 'Add numbers', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  };

  static override payload(args: Record<string, unknown>): { sum: number; count: number } {
    const numbers = args.numbers as number[];
    const sum = numbers.reduce((a, b) => a + b, 0);
    if (!Number.isFinite(sum)) throw new ToolError('The sum is not a finite number');
    return { sum, count: numbers.length };
  }
}
