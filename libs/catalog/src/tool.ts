import type { ToolCallResult } from './content';
import type { ToolDefinition } from './definitions';
import type { ToolContext } from './tool-context';

/**
 * An expected tool failure (bad upstream answer, not found, refused): becomes a result with
 * `isError: true` and this message. Anything else thrown becomes a generic `isError` result
 * with no stack trace.
 */
export class ToolError extends Error {
  override readonly name = 'ToolError';
  constructor(message: string, readonly details?: Record<string, unknown>, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * One class per tool. Subclasses declare `static definition` and `static payload(args, ctx)`,
 * which returns plain data; tests assert on `payload`. The base class validates arguments
 * (validator compiled once per class), runs `payload`, and renders the data: with an
 * `outputSchema`, `structuredContent` plus the same JSON as text; a string as one text
 * block; other data as JSON text. Override `render` for images, audio or resources.
 */
export abstract class Tool {
  static readonly definition: ToolDefinition;

  static payload(args: Record<string, unknown>, ctx: ToolContext): unknown {
    void args; void ctx;
    throw new Error(`${this.name} does not implement payload()`);
  }

  static render(data: unknown): ToolCallResult {
    void data;
    throw new Error('not implemented');
  }

  /** Validate → payload → render; validation failures and ToolErrors become `isError` results naming the field. */
  static async call(args: unknown, ctx: ToolContext): Promise<ToolCallResult> {
    void args; void ctx;
    throw new Error('not implemented');
  }
}

export type ToolClass = typeof Tool;
