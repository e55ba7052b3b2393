import type { ToolContext } from '@switchboard/catalog';
import { TestElicitationSep1330EnumsTool } from './test-elicitation-sep1330-enums-tool';
import { TestInputRequiredResultCapabilitiesTool } from './test-input-required-result-capabilities-tool';
import { TestInputRequiredResultElicitationTool } from './test-input-required-result-elicitation-tool';
import { TestInputRequiredResultMultiRoundTool } from './test-input-required-result-multi-round-tool';
import { TestInputRequiredResultMultipleInputsTool } from './test-input-required-result-multiple-inputs-tool';
import { TestInputRequiredResultPrompt } from './test-input-required-result-prompt';
import { TestInputRequiredResultRequestStateTool } from './test-input-required-result-request-state-tool';
import { TestInputRequiredResultTamperedStateTool } from './test-input-required-result-tampered-state-tool';
import { TestMissingCapabilityTool } from './test-missing-capability-tool';
import { TestSamplingTool } from './test-sampling-tool';
import { openState, sealState } from './request-state';

const ALL_CAPS = { sampling: {}, elicitation: {}, roots: {} };

/** A modern (2026-07-28) request context: per-request capabilities plus the MRTR retry fields. */
function modern(responses: Record<string, unknown> = {}, requestState?: string, clientCapabilities: Record<string, unknown> = ALL_CAPS): ToolContext {
  return {
    tenantId: 'conformance',
    signal: new AbortController().signal,
    progress: () => {},
    log: () => {},
    request: { era: 'modern', protocolVersion: '2026-07-28', clientCapabilities },
    input: requestState === undefined ? { responses } : { responses, requestState },
  };
}

const accept = (content: Record<string, unknown>) => ({ action: 'accept', content });

describe('conformance MRTR fixtures (2026-07-28)', () => {
  it('asks for a name, re-asks on a wrong key or malformed answer, ignores extra keys, then greets', () => {
    const first = TestInputRequiredResultElicitationTool.payload({}, modern());
    expect(first).toMatchObject({ inputRequests: { user_name: { method: 'elicitation/create' } } });
    expect(TestInputRequiredResultElicitationTool.payload({}, modern({ wrong_key: accept({ data: 'x' }) }))).toMatchObject({ inputRequests: { user_name: {} } });
    expect(TestInputRequiredResultElicitationTool.payload({}, modern({ user_name: 12345 }))).toMatchObject({ inputRequests: { user_name: {} } });
    expect(TestInputRequiredResultElicitationTool.payload({}, modern({ user_name: accept({ name: 'Alice' }), extra: accept({}) }))).toBe('Hello, Alice!');
  });

  it('round-trips a sealed requestState and says state-ok', () => {
    const first = TestInputRequiredResultRequestStateTool.payload({}, modern()) as { requestState: string };
    expect(typeof first.requestState).toBe('string');
    expect(TestInputRequiredResultRequestStateTool.payload({}, modern({ confirm: accept({ ok: true }) }, first.requestState))).toMatch(/state-ok/);
  });

  it('refuses a tampered requestState with -32602', () => {
    const first = TestInputRequiredResultTamperedStateTool.payload({}, modern()) as { requestState: string };
    const retry = () => TestInputRequiredResultTamperedStateTool.payload({}, modern({ confirm: accept({ ok: true }) }, `${first.requestState}-TAMPERED`));
    expect(retry).toThrow(expect.objectContaining({ code: -32602 }));
    expect(() => openState(modern(), 'not-a-state')).toThrow(expect.objectContaining({ code: -32602 }));
    expect(openState(modern(), sealState(modern(), { a: 1 }))).toEqual({ a: 1 });
  });

  it('asks for elicitation, sampling and roots at once and finishes when all are answered', () => {
    const first = TestInputRequiredResultMultipleInputsTool.payload({}, modern()) as { inputRequests: Record<string, { method: string }>; requestState: string };
    expect(Object.values(first.inputRequests).map((r) => r.method).sort()).toEqual(['elicitation/create', 'roots/list', 'sampling/createMessage']);
    const answers = {
      user_name: accept({ name: 'Alice' }),
      greeting: { role: 'assistant', content: { type: 'text', text: 'Hello there!' }, model: 'm', stopReason: 'endTurn' },
      client_roots: { roots: [{ uri: 'file:///r', name: 'R' }] },
    };
    expect(TestInputRequiredResultMultipleInputsTool.payload({}, modern(answers, first.requestState))).toBe('Hello there! Alice; roots: file:///r');
  });

  it('runs two rounds with an evolving requestState', () => {
    const r1 = TestInputRequiredResultMultiRoundTool.payload({}, modern()) as { inputRequests: object; requestState: string };
    expect(r1.inputRequests).toHaveProperty('step1');
    const r2 = TestInputRequiredResultMultiRoundTool.payload({}, modern({ step1: accept({ name: 'Alice' }) }, r1.requestState)) as { inputRequests: object; requestState: string };
    expect(r2.inputRequests).toHaveProperty('step2');
    expect(r2.requestState).not.toBe(r1.requestState);
    expect(TestInputRequiredResultMultiRoundTool.payload({}, modern({ step2: accept({ color: 'blue' }) }, r2.requestState))).toBe("Alice's favorite color is blue");
  });

  it('only asks for what the client declared', () => {
    const r = TestInputRequiredResultCapabilitiesTool.payload({}, modern({}, undefined, { sampling: {} })) as { inputRequests: Record<string, { method: string }> };
    expect(Object.values(r.inputRequests).map((x) => x.method)).toEqual(['sampling/createMessage']);
  });

  it('refuses with -32021 (HTTP 400, requiredCapabilities object) when sampling was not declared', () => {
    expect(() => TestMissingCapabilityTool.payload({}, modern({}, undefined, {}))).toThrow(
      expect.objectContaining({ code: -32021, httpStatus: 400, data: { requiredCapabilities: { sampling: {} } } }),
    );
  });

  it('turns the legacy-only sampling and elicitation fixtures into MRTR on modern requests', () => {
    expect(TestSamplingTool.payload({ prompt: 'hi' }, modern())).toMatchObject({ inputRequests: { completion: { method: 'sampling/createMessage' } } });
    expect(TestSamplingTool.payload({ prompt: 'hi' }, modern({ completion: { content: { type: 'text', text: 'yo' } } }))).toBe('LLM response: yo');
    const enums = TestElicitationSep1330EnumsTool.payload({}, modern()) as unknown as { inputRequests: { form: { params: { requestedSchema: { properties: object } } } } };
    expect(Object.keys(enums.inputRequests.form.params.requestedSchema.properties)).toEqual(['untitledSingle', 'titledSingle', 'legacyEnum', 'untitledMulti', 'titledMulti']);
  });

  it('the MRTR prompt asks for context, then builds its message', () => {
    expect(TestInputRequiredResultPrompt.messages({}, modern())).toMatchObject({ inputRequests: { user_context: { method: 'elicitation/create' } } });
    expect(TestInputRequiredResultPrompt.messages({}, modern({ user_context: accept({ context: 'ctx' }) }))).toEqual([
      { role: 'user', content: { type: 'text', text: 'Use this context: ctx' } },
    ]);
  });
});
