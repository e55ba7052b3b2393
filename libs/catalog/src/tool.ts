import { McpError } from '@switchboard/protocol';
import { compileValidator, type ArgsValidator } from './compile-validator';
import type { ContentBlock, InputRequest, InputRequiredResult, ToolCallResult } from './content';
import type { ToolDefinition } from './definitions';
import { InputRequired } from './input-required';
import type { ToolContext } from './tool-context';
import { ToolContent } from './tool-content';

/**
 * An expected tool failure (bad upstream answer, not found, refused): becomes a result with
 * `isError: true` and this message. An McpError is a verdict on the request itself (e.g.
 * −32021 missing client capability) and becomes the JSON-RPC error; anything else thrown
 * becomes a generic `isError` result with no stack trace.
 */
export class ToolError extends Error {
  override readonly name = 'ToolError';
  constructor(
    message: string,
    readonly details?: Record<string, unknown>,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

// Where a tool class keeps its validator: on the class itself, so state lives with what owns it.
const VALIDATOR = Symbol('validator');

/**
 * One class per tool. Subclasses declare `static definition` and `static payload(args, ctx)`,
 * which returns plain data; tests assert on `payload`. The base class validates arguments
 * (validator compiled once per class), runs `payload`, and renders the data: with an
 * `outputSchema`, `structuredContent` plus the same JSON as text; a string as one text
 * block; other data as JSON text. For images, audio or resources return
 * `Tool.content([...blocks])` from `payload`, or override `render`.
 */
export abstract class Tool {
  static readonly definition: ToolDefinition;

  static payload(args: Record<string, unknown>, ctx: ToolContext): unknown {
    void args;
    void ctx;
    throw new Error(`${this.name} does not implement payload()`);
  }

  /** Wraps content blocks (and optional structured data) so `render` passes them through untouched. */
  static content(blocks: ContentBlock[], structured?: unknown): ToolContent {
    return new ToolContent(blocks, structured);
  }

  /** MRTR (2026-07-28): ask the client for input first; only when `ctx.input` is present (modern requests). */
  static inputRequired(requests: Record<string, InputRequest>, requestState?: string): InputRequired {
    return new InputRequired(requests, requestState);
  }

  static render(data: unknown): ToolCallResult {
    if (data instanceof ToolContent) {
      return data.structured === undefined ? { content: data.blocks } : { content: data.blocks, structuredContent: data.structured };
    }
    if (this.definition?.outputSchema) {
      const structured = data === undefined ? null : data;
      return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
    }
    if (typeof data === 'string') return { content: [{ type: 'text', text: data }] };
    return { content: [{ type: 'text', text: JSON.stringify(data === undefined ? null : data) }] };
  }

  /** The compiled argument validator of this class (compiled once, on first use). */
  static validator(): ArgsValidator {
    // Own property only: a subclass must not reuse its parent's validator.
    if (Object.hasOwn(this, VALIDATOR)) return (this as unknown as Record<symbol, ArgsValidator>)[VALIDATOR] as ArgsValidator;
    const validate = compileValidator(this.definition.inputSchema);
    Object.defineProperty(this, VALIDATOR, { value: validate });
    return validate;
  }

  /** Validate → payload → render; validation failures and ToolErrors become `isError` results naming the field; McpErrors propagate. */
  static async call(args: unknown, ctx: ToolContext): Promise<ToolCallResult | InputRequiredResult> {
    const name = this.definition.name;
    // `arguments` is optional on the wire; a tool without parameters is called with none.
    const input = args === undefined || args === null ? {} : args;
    const problem = this.validator()(input);
    if (problem !== null) return errorResult(`Invalid arguments for tool ${name}: ${problem}`);
    try {
      const data = await this.payload(input as Record<string, unknown>, ctx);
      // Not a rendering of data: the call is not finished yet.
      if (data instanceof InputRequired) return data.toResult();
      return this.render(data);
    } catch (err) {
      if (err instanceof ToolError) return errorResult(err.message);
      if (err instanceof McpError) throw err;
      ctx.reportError?.(err);
      return errorResult(`Tool ${name} failed with an internal error`);
    }
  }
}

function errorResult(text: string): ToolCallResult {
  return { content: [{ type: 'text', text }], isError: true };
}

export type ToolClass = typeof Tool;
