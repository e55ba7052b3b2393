import type { ToolDefinition } from './definitions';
import { withUpstreamTaskSupport } from './task-support';

describe('withUpstreamTaskSupport', () => {
  const base: ToolDefinition = { name: 'research', inputSchema: { type: 'object' } };

  it("takes the upstream's execution.taskSupport, optional or required", () => {
    expect(withUpstreamTaskSupport({ ...base, execution: { taskSupport: 'required' } } as typeof base).taskSupport).toBe('required');
    expect(withUpstreamTaskSupport({ ...base, execution: { taskSupport: 'optional' } } as typeof base).taskSupport).toBe('optional');
  });

  it('drops a taskSupport field the upstream sent itself, and ignores forbidden or junk values', () => {
    expect(withUpstreamTaskSupport({ ...base, taskSupport: 'required' })).not.toHaveProperty('taskSupport');
    expect(
      withUpstreamTaskSupport({ ...base, taskSupport: 'required', execution: { taskSupport: 'forbidden' } } as typeof base),
    ).not.toHaveProperty('taskSupport');
    expect(withUpstreamTaskSupport({ ...base, execution: 'required' } as typeof base)).not.toHaveProperty('taskSupport');
  });
});
