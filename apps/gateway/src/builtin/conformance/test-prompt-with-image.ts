import { Prompt, type PromptDefinition, type PromptMessage } from '@switchboard/catalog';
import { PNG_1X1_BASE64 } from './fixture-media';

/** `prompts-get-with-image`: a message whose content is an image. */
export class TestPromptWithImage extends Prompt {
  static override readonly definition: PromptDefinition = {
    name: 'test_prompt_with_image',
    description: 'A prompt that includes image content',
  };

  static override messages(): PromptMessage[] {
    return [
      { role: 'user', content: { type: 'image', data: PNG_1X1_BASE64, mimeType: 'image/png' } },
      { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
    ];
  }
}
