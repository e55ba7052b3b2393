import { ToolContent, type ToolCallResult, type ToolContext } from '@switchboard/catalog';
import { JsonSchema202012Tool } from './json-schema-2020-12-tool';
import { TestAudioContentTool } from './test-audio-content-tool';
import { TestElicitationSep1034DefaultsTool } from './test-elicitation-sep1034-defaults-tool';
import { TestElicitationSep1330EnumsTool } from './test-elicitation-sep1330-enums-tool';
import { TestElicitationTool } from './test-elicitation-tool';
import { TestEmbeddedResourceTool } from './test-embedded-resource-tool';
import { TestErrorHandlingTool } from './test-error-handling-tool';
import { TestImageContentTool } from './test-image-content-tool';
import { TestMultipleContentTypesTool } from './test-multiple-content-types-tool';
import { TestSamplingTool } from './test-sampling-tool';
import { TestSimpleTextTool } from './test-simple-text-tool';
import { TestToolWithLoggingTool } from './test-tool-with-logging-tool';
import { TestToolWithProgressTool } from './test-tool-with-progress-tool';

interface Recorded {
  ctx: ToolContext;
  logs: Array<{ level: string; data: unknown }>;
  progress: Array<{ progress: number; total?: number }>;
}

function recordingContext(signal: AbortSignal = new AbortController().signal): Recorded {
  const logs: Recorded['logs'] = [];
  const progress: Recorded['progress'] = [];
  const ctx: ToolContext = {
    tenantId: 'conformance',
    signal,
    progress: (p, total) => progress.push({ progress: p, total }),
    log: (level, data) => logs.push({ level, data }),
  };
  return { ctx, logs, progress };
}

function blocks(data: unknown) {
  expect(data).toBeInstanceOf(ToolContent);
  return (data as ToolContent).blocks;
}

describe('conformance tools', () => {
  it('test_simple_text returns text', () => {
    expect(TestSimpleTextTool.payload()).toMatch(/simple text/);
  });

  it('test_image_content returns a PNG image block', () => {
    const [image] = blocks(TestImageContentTool.payload());
    expect(image).toMatchObject({ type: 'image', mimeType: 'image/png' });
    const bytes = Buffer.from((image as { data: string }).data, 'base64');
    expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  });

  it('test_audio_content returns a RIFF/WAVE audio block', () => {
    const [audio] = blocks(TestAudioContentTool.payload());
    expect(audio).toMatchObject({ type: 'audio', mimeType: 'audio/wav' });
    const bytes = Buffer.from((audio as { data: string }).data, 'base64');
    expect(bytes.subarray(0, 4).toString('latin1')).toBe('RIFF');
    expect(bytes.subarray(8, 12).toString('latin1')).toBe('WAVE');
    expect(bytes.readUInt32LE(4)).toBe(bytes.length - 8);
  });

  it('test_embedded_resource returns a resource with uri, mimeType and text', () => {
    const [block] = blocks(TestEmbeddedResourceTool.payload());
    expect(block).toMatchObject({ type: 'resource', resource: { uri: expect.any(String), mimeType: 'text/plain', text: expect.any(String) } });
  });

  it('test_multiple_content_types mixes text, image and resource blocks', () => {
    const types = blocks(TestMultipleContentTypesTool.payload()).map((b) => b.type);
    expect(types).toEqual(['text', 'image', 'resource']);
  });

  it('test_tool_with_logging emits three info logs while it runs', async () => {
    const { ctx, logs } = recordingContext();
    await expect(TestToolWithLoggingTool.payload({}, ctx)).resolves.toMatch(/executed/);
    expect(logs.map((l) => l.data)).toEqual(['Tool execution started', 'Tool processing data', 'Tool execution completed']);
    expect(new Set(logs.map((l) => l.level))).toEqual(new Set(['info']));
  });

  it('test_tool_with_progress reports 0, 50, 100 of 100', async () => {
    const { ctx, progress } = recordingContext();
    await TestToolWithProgressTool.payload({}, ctx);
    expect(progress).toEqual([
      { progress: 0, total: 100 },
      { progress: 50, total: 100 },
      { progress: 100, total: 100 },
    ]);
  });

  it('test_tool_with_progress stops waiting once the call is aborted', async () => {
    const abort = new AbortController();
    abort.abort();
    const { ctx } = recordingContext(abort.signal);
    await expect(TestToolWithProgressTool.payload({}, ctx)).resolves.toEqual(expect.any(String));
  });

  it('test_error_handling becomes an isError result with a message', async () => {
    const result = (await TestErrorHandlingTool.call({}, recordingContext().ctx)) as ToolCallResult;
    expect(result.isError).toBe(true);
    expect(result.content[0]).toMatchObject({ type: 'text', text: expect.stringMatching(/intentionally/) });
  });

  it.each([
    [TestSamplingTool, { prompt: 'hi' }, 'sampling/createMessage'],
    [TestElicitationTool, { message: 'who?' }, 'elicitation/create'],
    [TestElicitationSep1034DefaultsTool, {}, 'elicitation/create'],
    [TestElicitationSep1330EnumsTool, {}, 'elicitation/create'],
  ])('%p fails at once on a legacy request, naming the server-to-client request it would need', async (tool, args, method) => {
    const result = (await tool.call(args, recordingContext().ctx)) as ToolCallResult;
    expect(result.isError).toBe(true);
    expect(result.content[0]).toMatchObject({ type: 'text', text: expect.stringContaining(method) });
  });

  it('test_sampling and test_elicitation declare their required string argument', () => {
    expect(TestSamplingTool.definition.inputSchema).toMatchObject({ required: ['prompt'], properties: { prompt: { type: 'string' } } });
    expect(TestElicitationTool.definition.inputSchema).toMatchObject({ required: ['message'], properties: { message: { type: 'string' } } });
  });

  it('json_schema_2020_12_tool declares the raw 2020-12 schema the suite looks for', () => {
    const schema = JsonSchema202012Tool.definition.inputSchema;
    expect(schema).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $defs: { address: { $anchor: 'addressDef' } },
      additionalProperties: false,
      if: expect.any(Object),
      then: expect.any(Object),
      else: expect.any(Object),
    });
    expect(schema.allOf).toEqual([{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }]);
  });

  it('json_schema_2020_12_tool validates with the 2020-12 rules ($ref into $defs, if/then/else)', async () => {
    const { ctx } = recordingContext();
    const call = async (args: unknown) => (await JsonSchema202012Tool.call(args, ctx)) as ToolCallResult;
    const ok = await call({ name: 'A', contactMethod: 'phone', phone: '1', address: { city: 'X' } });
    expect(ok.isError).toBeUndefined();
    const missingPhone = await call({ contactMethod: 'phone', email: 'a@b.c' });
    expect(missingPhone.isError).toBe(true);
    const extra = await call({ email: 'a@b.c', nickname: 'x' });
    expect(extra.isError).toBe(true);
  });
});
