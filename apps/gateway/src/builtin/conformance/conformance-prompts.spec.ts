import type { ToolContext } from '@switchboard/catalog';
import { TestPromptWithArguments } from './test-prompt-with-arguments';
import { TestPromptWithEmbeddedResource } from './test-prompt-with-embedded-resource';
import { TestPromptWithImage } from './test-prompt-with-image';
import { TestSimplePrompt } from './test-simple-prompt';

const ctx: ToolContext = { tenantId: 'conformance', signal: new AbortController().signal, progress: () => {}, log: () => {} };

describe('conformance prompts', () => {
  it('test_simple_prompt has one user text message', () => {
    expect(TestSimplePrompt.messages()).toEqual([{ role: 'user', content: { type: 'text', text: expect.any(String) } }]);
  });

  it('test_prompt_with_arguments puts both values in the text', () => {
    const [m] = TestPromptWithArguments.messages({ arg1: 'first', arg2: 'second' });
    expect(m?.content).toMatchObject({ type: 'text', text: expect.stringContaining('first') });
    expect(m?.content).toMatchObject({ text: expect.stringContaining('second') });
  });

  it('test_prompt_with_arguments requires arg1 and arg2 (-32602 naming the argument)', async () => {
    await expect(TestPromptWithArguments.get({ arg1: 'x' }, ctx)).rejects.toMatchObject({ code: -32602, data: { argument: 'arg2' } });
  });

  it('test_prompt_with_arguments completes arg1 by prefix', () => {
    expect(TestPromptWithArguments.complete('arg1', 'te')).toEqual(['test', 'testing']);
    expect(TestPromptWithArguments.complete('arg1', 'zz')).toEqual([]);
    expect(TestPromptWithArguments.complete('other', '')).toEqual([]);
  });

  it('test_prompt_with_embedded_resource embeds the requested URI', () => {
    const messages = TestPromptWithEmbeddedResource.messages({ resourceUri: 'test://example' });
    expect(messages[0]?.content).toMatchObject({ type: 'resource', resource: { uri: 'test://example', text: expect.any(String) } });
  });

  it('test_prompt_with_image has an image message', () => {
    const messages = TestPromptWithImage.messages();
    expect(messages.some((m) => m.content.type === 'image')).toBe(true);
  });
});
