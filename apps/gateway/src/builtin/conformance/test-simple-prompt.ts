import { Prompt, type PromptDefinition, type PromptMessage } from '@switchboard/catalog';

/** `prompts-get-simple`: one user message, no arguments. */
export class TestSimplePrompt extends Prompt {
  static override readonly definition: PromptDefinition = {
    name: 'test_simple_prompt',
    description: 'A simple prompt without arguments',
  };

  static override messages(): PromptMessage[] {
    return [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }];
  }
}
