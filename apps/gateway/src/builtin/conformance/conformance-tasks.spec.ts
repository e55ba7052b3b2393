import { McpError } from '@switchboard/protocol';
import type { ToolContext } from '@switchboard/catalog';
import { ConfirmDeleteTool } from './confirm-delete-tool';
import { FailingJobTool } from './failing-job-tool';
import { GreetTool } from './greet-tool';
import { MultiInputTool } from './multi-input-tool';
import { ProtocolErrorJobTool } from './protocol-error-job-tool';
import { SlowComputeTool } from './slow-compute-tool';
import { TestToolWithTaskTool } from './test-tool-with-task-tool';

/** A modern context whose signal is already aborted, so the fixtures' pauses end at once. */
function ctx(responses: Record<string, unknown> = {}, clientCapabilities: Record<string, unknown> = { elicitation: {} }): ToolContext {
  const abort = new AbortController();
  abort.abort();
  return { tenantId: 'conformance', signal: abort.signal, progress: () => {}, log: () => {}, request: { era: 'modern', protocolVersion: '2026-07-28', clientCapabilities }, input: { responses } };
}
const accept = (content: Record<string, unknown>) => ({ action: 'accept', content });

describe('conformance tasks fixtures (SEP-2663)', () => {
  it('declare task support as the scenarios expect (greet none, failing_job and test_tool_with_task required)', () => {
    expect(GreetTool.definition.taskSupport).toBeUndefined();
    expect(SlowComputeTool.definition.taskSupport).toBe('optional');
    expect(FailingJobTool.definition.taskSupport).toBe('required');
    expect(TestToolWithTaskTool.definition.taskSupport).toBe('required');
    for (const t of [ProtocolErrorJobTool, ConfirmDeleteTool, MultiInputTool]) expect(t.definition.taskSupport).toBe('optional');
  });

  it('greet and slow_compute answer; failing_job is a tool error, protocol_error_job a JSON-RPC error', async () => {
    expect(await GreetTool.call({ name: 'World' }, ctx())).toEqual({ content: [{ type: 'text', text: 'Hello, World!' }] });
    expect(await SlowComputeTool.call({ seconds: 0, label: 'x' }, ctx())).toEqual({ content: [{ type: 'text', text: 'Computed x after 0 s' }] });
    expect(await SlowComputeTool.call({ seconds: 301 }, ctx())).toMatchObject({ isError: true });
    expect(await FailingJobTool.call({}, ctx())).toMatchObject({ isError: true });
    await expect(ProtocolErrorJobTool.call({}, ctx())).rejects.toBeInstanceOf(McpError);
  });

  it('confirm_delete and multi_input ask, then finish with the answers; test_tool_with_task greets the gathered name', async () => {
    expect(await ConfirmDeleteTool.call({ filename: 'f.txt' }, ctx())).toMatchObject({ resultType: 'input_required', inputRequests: { confirm: { method: 'elicitation/create' } } });
    expect(await ConfirmDeleteTool.call({ filename: 'f.txt' }, ctx({ confirm: accept({ confirm: true }) }))).toEqual({ content: [{ type: 'text', text: 'Deleted f.txt' }] });
    await expect(ConfirmDeleteTool.call({ filename: 'f.txt' }, ctx({}, {}))).rejects.toMatchObject({ code: -32021 });
    expect(await MultiInputTool.call({}, ctx({ first: accept({ name: 'a' }) }))).toMatchObject({ inputRequests: { first: {}, second: {} } });
    expect(await MultiInputTool.call({}, ctx({ first: accept({ name: 'a' }), second: accept({ name: 'b' }) }))).toEqual({ content: [{ type: 'text', text: 'Got a and b' }] });
    expect(await TestToolWithTaskTool.call({}, ctx())).toMatchObject({ resultType: 'input_required', inputRequests: { user_name: {} } });
    expect(JSON.stringify(await TestToolWithTaskTool.call({}, ctx({ user_name: accept({ name: 'Alice' }) })))).toContain('Hello, Alice!');
  });
});
