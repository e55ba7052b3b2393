import { ErrorCode, McpError } from '@switchboard/protocol';
import type { PromptMessage } from './content';
import type { PromptDefinition } from './definitions';
import { InputRequired } from './input-required';
import { Prompt } from './prompt';
import type { ToolContext } from './tool-context';

const ctx: ToolContext = { tenantId: 't1', signal: new AbortController().signal, progress: () => {}, log: () => {} };

class WithArgs extends Prompt {
  static override readonly definition: PromptDefinition = {
    name: 'test_prompt_with_arguments',
    description: 'A prompt with arguments',
    arguments: [
      { name: 'arg1', required: true },
      { name: 'arg2', required: false },
    ],
  };
  static override messages(args: Record<string, string>): PromptMessage[] {
    return [{ role: 'user', content: { type: 'text', text: `arg1=${args.arg1} arg2=${args.arg2 ?? '-'}` } }];
  }
}

class NoDescription extends Prompt {
  static override readonly definition: PromptDefinition = { name: 'plain' };
  static override async messages(): Promise<PromptMessage[]> {
    return [{ role: 'assistant', content: { type: 'text', text: 'hi' } }];
  }
}

async function rejection(p: Promise<unknown>): Promise<McpError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof McpError) return err;
    throw err;
  }
  throw new Error('expected a rejection');
}

describe('Prompt', () => {
  it('returns description and messages built from the arguments', async () => {
    expect(await WithArgs.get({ arg1: 'a', arg2: 'b' }, ctx)).toEqual({
      description: 'A prompt with arguments',
      messages: [{ role: 'user', content: { type: 'text', text: 'arg1=a arg2=b' } }],
    });
  });

  it('leaves out a description the prompt does not have and accepts missing arguments', async () => {
    expect(await NoDescription.get(undefined, ctx)).toEqual({ messages: [{ role: 'assistant', content: { type: 'text', text: 'hi' } }] });
  });

  it('rejects a missing required argument with -32602 naming it', async () => {
    const err = await rejection(WithArgs.get({ arg2: 'b' }, ctx));
    expect(err.code).toBe(ErrorCode.InvalidParams);
    expect(err.message).toContain('arg1');
  });

  it('does not take inherited properties for a required argument', async () => {
    class Ctor extends Prompt {
      static override readonly definition: PromptDefinition = { name: 'c', arguments: [{ name: 'constructor', required: true }] };
    }
    expect((await rejection(Ctor.get({}, ctx))).message).toContain('constructor');
  });

  it('rejects non-string argument values and non-object arguments with -32602', async () => {
    const err = await rejection(WithArgs.get({ arg1: 5 }, ctx));
    expect(err.code).toBe(ErrorCode.InvalidParams);
    expect(err.message).toContain('arg1: must be string');
    expect((await rejection(WithArgs.get(['x'], ctx))).code).toBe(ErrorCode.InvalidParams);
  });

  it('offers no completions by default', () => {
    expect(WithArgs.complete('arg1', 'a')).toEqual([]);
  });

  it('returns an InputRequiredResult when messages asks for input (MRTR)', async () => {
    class AsksContext extends Prompt {
      static override readonly definition: PromptDefinition = { name: 'asks_context' };
      static override messages(_args: Record<string, string>, c: ToolContext): PromptMessage[] | InputRequired {
        if (c.input && c.input.responses.context === undefined) {
          return new InputRequired({ context: { method: 'roots/list', params: {} } });
        }
        return [{ role: 'user', content: { type: 'text', text: 'ok' } }];
      }
    }
    expect(await AsksContext.get({}, { ...ctx, input: { responses: {} } })).toEqual({
      resultType: 'input_required',
      inputRequests: { context: { method: 'roots/list', params: {} } },
    });
    expect(await AsksContext.get({}, ctx)).toEqual({ messages: [{ role: 'user', content: { type: 'text', text: 'ok' } }] });
  });
});
