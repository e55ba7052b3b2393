import { ErrorCode, McpError } from '@switchboard/protocol';
import type { ToolCallResult } from './content';
import type { ToolDefinition } from './definitions';
import { Tool, ToolError } from './tool';
import type { ToolContext } from './tool-context';
import { ToolContent } from './tool-content';

function context(): ToolContext & { reported: unknown[] } {
  const reported: unknown[] = [];
  return {
    tenantId: 't1',
    signal: new AbortController().signal,
    progress: () => {},
    log: () => {},
    reportError: (e) => reported.push(e),
    reported,
  };
}

class Echo extends Tool {
  static override readonly definition: ToolDefinition = {
    name: 'echo',
    inputSchema: { type: 'object', properties: { text: { type: 'string' }, n: { type: 'integer', minimum: 1 } }, required: ['text'] },
  };
  static override payload(args: Record<string, unknown>): unknown {
    return `echo: ${String(args.text)}`;
  }
}

class Sum extends Tool {
  static override readonly definition: ToolDefinition = {
    name: 'sum',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    outputSchema: { type: 'object', properties: { sum: { type: 'number' } } },
  };
  static override payload(args: Record<string, unknown>): unknown {
    return { sum: (args.a as number) + (args.b as number) };
  }
}

class Listing extends Tool {
  static override readonly definition: ToolDefinition = { name: 'listing', inputSchema: { type: 'object' } };
  static override async payload(): Promise<unknown> {
    return [{ id: 1 }, { id: 2 }];
  }
}

class Picture extends Tool {
  static override readonly definition: ToolDefinition = { name: 'picture', inputSchema: { type: 'object', additionalProperties: false } };
  static override payload(): unknown {
    return Tool.content([
      { type: 'text', text: 'a red dot' },
      { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
      { type: 'resource', resource: { uri: 'test://dot', mimeType: 'text/plain', text: 'dot' } },
    ]);
  }
}

class Refuses extends Tool {
  static override readonly definition: ToolDefinition = { name: 'refuses', inputSchema: { type: 'object' } };
  static override payload(): unknown {
    throw new ToolError('Repository acme/x was not found');
  }
}

class Crashes extends Tool {
  static override readonly definition: ToolDefinition = { name: 'crashes', inputSchema: { type: 'object' } };
  static override payload(): unknown {
    throw new Error('connect ECONNREFUSED 10.0.0.7:5432 password=hunter2');
  }
}

describe('Tool', () => {
  it('renders a string payload as one text block', async () => {
    expect(await Echo.call({ text: 'hi' }, context())).toEqual({ content: [{ type: 'text', text: 'echo: hi' }] });
  });

  it('renders other data as JSON text', async () => {
    expect(await Listing.call({}, context())).toEqual({ content: [{ type: 'text', text: '[{"id":1},{"id":2}]' }] });
  });

  it('with an outputSchema returns structuredContent and the same JSON as text', async () => {
    expect(await Sum.call({ a: 2, b: 3 }, context())).toEqual({
      content: [{ type: 'text', text: '{"sum":5}' }],
      structuredContent: { sum: 5 },
    });
  });

  it('passes content blocks from Tool.content through untouched', async () => {
    const result = (await Picture.call(undefined, context())) as ToolCallResult;
    expect(result.isError).toBeUndefined();
    expect(result.content.map((b) => b.type)).toEqual(['text', 'image', 'resource']);
    expect(Tool.content([], { a: 1 })).toBeInstanceOf(ToolContent);
    expect(Tool.render(Tool.content([{ type: 'text', text: 'x' }], { a: 1 }))).toEqual({
      content: [{ type: 'text', text: 'x' }],
      structuredContent: { a: 1 },
    });
  });

  it('answers invalid arguments with an isError result naming the field', async () => {
    expect(await Echo.call({ text: 5 }, context())).toEqual({
      content: [{ type: 'text', text: 'Invalid arguments for tool echo: text: must be string' }],
      isError: true,
    });
    const missing = (await Echo.call({}, context())) as ToolCallResult;
    expect(missing.isError).toBe(true);
    expect(missing.content[0]).toEqual({ type: 'text', text: 'Invalid arguments for tool echo: text: is required' });
    const bad = (await Echo.call({ text: 'x', n: 0 }, context())) as ToolCallResult;
    expect((bad.content[0] as { text: string }).text).toBe('Invalid arguments for tool echo: n: must be >= 1');
  });

  it('treats missing arguments as an empty object', async () => {
    expect(((await Picture.call(undefined, context())) as ToolCallResult).isError).toBeUndefined();
    expect(((await Picture.call({ x: 1 }, context())) as ToolCallResult).isError).toBe(true);
  });

  it('turns a ToolError into an isError result with its message', async () => {
    expect(await Refuses.call({}, context())).toEqual({
      content: [{ type: 'text', text: 'Repository acme/x was not found' }],
      isError: true,
    });
  });

  it('hides unexpected errors behind a generic message and reports them server-side', async () => {
    const ctx = context();
    const result = await Crashes.call({}, ctx);
    expect(result).toEqual({ content: [{ type: 'text', text: 'Tool crashes failed with an internal error' }], isError: true });
    expect(JSON.stringify(result)).not.toMatch(/hunter2|ECONNREFUSED|at /);
    expect(ctx.reported).toHaveLength(1);
  });

  it('lets an McpError through as the JSON-RPC error of the request', async () => {
    class NeedsSampling extends Tool {
      static override readonly definition: ToolDefinition = { name: 'needs_sampling', inputSchema: { type: 'object' } };
      static override payload(): never {
        throw new McpError(ErrorCode.MissingRequiredClientCapability, 'needs sampling', { requiredCapabilities: { sampling: {} } }, 400);
      }
    }
    await expect(NeedsSampling.call({}, context())).rejects.toMatchObject({ code: -32021, httpStatus: 400 });
  });

  it('returns an InputRequiredResult when payload asks for input (MRTR)', async () => {
    class AsksName extends Tool {
      static override readonly definition: ToolDefinition = { name: 'asks_name', inputSchema: { type: 'object' } };
      static override payload(_args: Record<string, unknown>, ctx: ToolContext): unknown {
        const answer = ctx.input?.responses.name;
        if (ctx.input && answer === undefined) {
          return Tool.inputRequired(
            { name: { method: 'elicitation/create', params: { message: 'Name?', requestedSchema: { type: 'object' } } } },
            's1',
          );
        }
        return 'done';
      }
    }
    expect(await AsksName.call({}, { ...context(), input: { responses: {} } })).toEqual({
      resultType: 'input_required',
      inputRequests: { name: { method: 'elicitation/create', params: { message: 'Name?', requestedSchema: { type: 'object' } } } },
      requestState: 's1',
    });
    expect(await AsksName.call({}, { ...context(), input: { responses: { name: { action: 'accept' } } } })).toEqual({
      content: [{ type: 'text', text: 'done' }],
    });
    expect(await AsksName.call({}, context())).toEqual({ content: [{ type: 'text', text: 'done' }] });
  });

  it('compiles the validator once per class', () => {
    expect(Echo.validator()).toBe(Echo.validator());
    expect(Echo.validator()).not.toBe(Sum.validator());
  });
});
