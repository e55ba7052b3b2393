import { Prompt, type PromptDefinition, type PromptMessage } from '@switchboard/catalog';

/** Completion candidates per argument (`completion-complete` asks for `arg1`). */
const CANDIDATES: Readonly<Record<string, readonly string[]>> = {
  arg1: ['paris', 'park', 'party', 'test', 'testing'],
  arg2: ['alpha', 'beta', 'gamma'],
};

/** `prompts-get-with-args` and `completion-complete`: both arguments appear in the message. */
export class TestPromptWithArguments extends Prompt {
  static override readonly definition: PromptDefinition = {
    name: 'test_prompt_with_arguments',
    description: 'A prompt with required arguments',
    arguments: [
      { name: 'arg1', description: 'First test argument', required: true },
      { name: 'arg2', description: 'Second test argument', required: true },
    ],
  };

  static override messages(args: Record<string, string>): PromptMessage[] {
    return [{ role: 'user', content: { type: 'text', text: `Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'` } }];
  }

  static override complete(argument: string, value: string): string[] {
    return (CANDIDATES[argument] ?? []).filter((c) => c.startsWith(value));
  }
}
