import type { ResourceContents } from './content';
import type { ResourceDefinition, ResourceTemplateDefinition } from './definitions';
import { Resource, ResourceTemplate } from './resource';
import type { ToolContext } from './tool-context';

const ctx: ToolContext = { tenantId: 't1', signal: new AbortController().signal, progress: () => {}, log: () => {} };

class StaticText extends Resource {
  static override readonly definition: ResourceDefinition = { uri: 'test://static-text', name: 'static-text', mimeType: 'text/plain' };
  static override read(_ctx: ToolContext): ResourceContents[] {
    return [{ uri: this.definition.uri, mimeType: 'text/plain', text: 'hello' }];
  }
}

class ItemData extends ResourceTemplate {
  static override readonly definition: ResourceTemplateDefinition = { uriTemplate: 'test://template/{id}/data', name: 'item-data' };
  static override read(uri: string, vars: Record<string, string>, _ctx: ToolContext): ResourceContents[] {
    return [{ uri, mimeType: 'application/json', text: JSON.stringify({ id: vars.id }) }];
  }
}

class Files extends ResourceTemplate {
  static override readonly definition: ResourceTemplateDefinition = { uriTemplate: 'file:///{+path}', name: 'files' };
}

describe('Resource and ResourceTemplate', () => {
  it('reads a static resource', async () => {
    expect(await StaticText.read(ctx)).toEqual([{ uri: 'test://static-text', mimeType: 'text/plain', text: 'hello' }]);
  });

  it('matches its template and reads with the variables', async () => {
    const vars = ItemData.match('test://template/123/data');
    expect(vars).toEqual({ id: '123' });
    const contents = await ItemData.read('test://template/123/data', vars ?? {}, ctx);
    expect(contents[0]?.text).toContain('123');
  });

  it('refuses a URI where a {var} would have to span a slash', () => {
    expect(ItemData.match('test://template/1/2/data')).toBeNull();
    expect(Files.match('file:///a/b/c')).toEqual({ path: 'a/b/c' });
  });

  it('keeps matchers per class', () => {
    expect(ItemData.match('file:///a')).toBeNull();
    expect(Files.match('test://template/1/data')).toBeNull();
  });
});
