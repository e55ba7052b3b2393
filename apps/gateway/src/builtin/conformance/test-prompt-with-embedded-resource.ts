import { Prompt, type PromptDefinition, type PromptMessage } from '@switchboard/catalog';

/** `prompts-get-embedded-resource`: a message whose content is the resource named by `resourceUri`. */
export class TestPromptWithEmbeddedResource extends Prompt {
  static override readonly definition: PromptDefinition = {
    name: 'test_prompt_with_embedded_resource',
    description: 'A prompt that includes an embedded resource',
    arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
  };

  static override messages(args: Record<string, string>): PromptMessage[] {
    const uri = args.resourceUri ?? '';
    return [
      { role: 'user', content: { type: 'resource', resource: { uri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' } } },
      { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
    ];
  }
}
