import { bundleHandlers } from './bundle-handlers';
import type { ToolDefinition } from './definitions';
import { snapshotFromBundle, type LocalBundle } from './local-bundle';
import { Tool } from './tool';

class Echo extends Tool {
  static override readonly definition: ToolDefinition = { name: 'echo', inputSchema: { type: 'object' } };
}
class Time extends Tool {
  static override readonly definition: ToolDefinition = { name: 'time', inputSchema: { type: 'object' } };
}

describe('bundleHandlers', () => {
  it('finds the class behind every local route of the bundle snapshots', () => {
    const a: LocalBundle = { id: 'a', server: { name: 'a', version: '1' }, tools: [Echo] };
    const b: LocalBundle = { id: 'b', server: { name: 'b', version: '1' }, tools: [Echo, Time] };
    const handlers = bundleHandlers(a, b);
    for (const bundle of [a, b]) {
      for (const entry of snapshotFromBundle('t1', bundle).tools) {
        if (entry.route.kind !== 'local') throw new Error('expected a local route');
        expect(handlers.tools.get(entry.route.handler)?.definition).toBe(entry.definition);
      }
    }
    expect(handlers.tools.size).toBe(3);
    expect(handlers.prompts.size).toBe(0);
  });
});
