import type { GetPromptResult, PromptMessage } from './content';
import type { PromptDefinition } from './definitions';
import type { ToolContext } from './tool-context';

/** One class per prompt; `messages` returns plain data. */
export abstract class Prompt {
  static readonly definition: PromptDefinition;
  static messages(args: Record<string, string>, ctx: ToolContext): PromptMessage[] | Promise<PromptMessage[]> {
    void args; void ctx;
    throw new Error(`${this.name} does not implement messages()`);
  }
  /** Checks required arguments (McpError −32602 naming the argument), then builds the result. */
  static async get(args: unknown, ctx: ToolContext): Promise<GetPromptResult> {
    void args; void ctx;
    throw new Error('not implemented');
  }
  /** Completion values for an argument (`completion/complete`); default none. */
  static complete(argument: string, value: string): string[] {
    void argument; void value;
    return [];
  }
}

export type PromptClass = typeof Prompt;
