import type { PromptMessage } from './content';
import type { PromptDefinition, ResourceDefinition, ResourceTemplateDefinition, ToolDefinition } from './definitions';
import { hashSnapshot } from './hash-snapshot';
import { localHandlerKey, snapshotFromBundle, type LocalBundle } from './local-bundle';
import { Prompt } from './prompt';
import { Resource, ResourceTemplate } from './resource';
import { Tool } from './tool';

class Echo extends Tool {
  static override readonly definition: ToolDefinition = { name: 'echo', inputSchema: { type: 'object' } };
}
class Readme extends Resource {
  static override readonly definition: ResourceDefinition = { uri: 'demo://readme', name: 'readme' };
}
class Item extends ResourceTemplate {
  static override readonly definition: ResourceTemplateDefinition = { uriTemplate: 'demo://items/{id}', name: 'item' };
}
class Greet extends Prompt {
  static override readonly definition: PromptDefinition = { name: 'greet' };
  static override messages(): PromptMessage[] {
    return [];
  }
}

const demoBundle: LocalBundle = {
  id: 'demo',
  server: { name: 'demo', version: '1.0.0' },
  instructions: 'Use echo.',
  tools: [Echo],
  resources: [Readme],
  resourceTemplates: [Item],
  prompts: [Greet],
};

describe('snapshotFromBundle', () => {
  it('routes every entry to its local handler key', () => {
    const s = snapshotFromBundle('t1', demoBundle);
    expect(s.tenantId).toBe('t1');
    expect(s.instructions).toBe('Use echo.');
    expect(s.tools).toEqual([{ definition: Echo.definition, route: { kind: 'local', handler: 'demo:echo' } }]);
    expect(s.resources[0]?.route).toEqual({ kind: 'local', handler: 'demo:demo://readme' });
    expect(s.resourceTemplates[0]?.route).toEqual({ kind: 'local', handler: 'demo:demo://items/{id}' });
    expect(s.prompts[0]?.route).toEqual({ kind: 'local', handler: localHandlerKey('demo', 'greet') });
  });

  it('versions the snapshot with its content hash', () => {
    const s = snapshotFromBundle('t1', demoBundle);
    const { version, ...content } = s;
    expect(version).toBe(hashSnapshot(content));
    expect(snapshotFromBundle('t1', demoBundle).version).toBe(version);
    expect(snapshotFromBundle('t2', demoBundle).version).not.toBe(version);
  });

  it('gives empty lists for kinds the bundle does not have', () => {
    const s = snapshotFromBundle('t1', { id: 'x', server: { name: 'x', version: '0' }, tools: [] });
    expect(s).toMatchObject({ tools: [], resources: [], resourceTemplates: [], prompts: [] });
    expect(s).not.toHaveProperty('instructions');
  });
});
