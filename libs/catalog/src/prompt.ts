import { ErrorCode, McpError } from '@switchboard/protocol';
import type { GetPromptResult, InputRequiredResult, PromptMessage } from './content';
import type { PromptDefinition } from './definitions';
import { InputRequired } from './input-required';
import type { ToolContext } from './tool-context';

/** One class per prompt; `messages` returns plain data. */
export abstract class Prompt {
  static readonly definition: PromptDefinition;
  /** The messages, or (2026-07-28, only when `ctx.input` is present) `new InputRequired(...)` to ask the client first. */
  static messages(
    args: Record<string, string>,
    ctx: ToolContext,
  ): PromptMessage[] | InputRequired | Promise<PromptMessage[] | InputRequired> {
    void args;
    void ctx;
    throw new Error(`${this.name} does not implement messages()`);
  }
  /**
   * Checks the arguments (an object of strings; every required one present), then builds the result.
   * @throws McpError −32602 naming the missing or malformed argument.
   */
  static async get(args: unknown, ctx: ToolContext): Promise<GetPromptResult | InputRequiredResult> {
    const def = this.definition;
    const input = args === undefined || args === null ? {} : args;
    if (typeof input !== 'object' || Array.isArray(input)) {
      throw new McpError(ErrorCode.InvalidParams, `Invalid arguments for prompt ${def.name}: arguments: must be an object of strings`);
    }
    const values: Record<string, string> = {};
    for (const [key, value] of Object.entries(input)) {
      if (typeof value !== 'string') {
        throw new McpError(ErrorCode.InvalidParams, `Invalid arguments for prompt ${def.name}: ${key}: must be string`);
      }
      values[key] = value;
    }
    for (const arg of def.arguments ?? []) {
      if (arg.required && !Object.hasOwn(values, arg.name)) {
        throw new McpError(ErrorCode.InvalidParams, `Missing required argument for prompt ${def.name}: ${arg.name}`, {
          argument: arg.name,
        });
      }
    }
    const messages = await this.messages(values, ctx);
    if (messages instanceof InputRequired) return messages.toResult();
    return def.description === undefined ? { messages } : { description: def.description, messages };
  }
  /** Completion values for an argument (`completion/complete`); default none. */
  static complete(argument: string, value: string): string[] {
    void argument;
    void value;
    return [];
  }
}

export type PromptClass = typeof Prompt;
