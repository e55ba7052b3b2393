import { serverJsonProblem, SERVER_JSON_SCHEMA_URL } from './server-json-schema';

const valid = {
  $schema: SERVER_JSON_SCHEMA_URL,
  name: 'io.example/crm',
  description: 'CRM tools',
  version: '1.0.0',
  remotes: [{ type: 'streamable-http', url: 'https://crm.example.com/mcp' }],
};

describe('serverJsonProblem (the official server.json schema)', () => {
  it('accepts a remote server and a package-only one', () => {
    expect(serverJsonProblem(valid)).toBeUndefined();
    expect(
      serverJsonProblem({
        name: 'io.example/x',
        description: 'd',
        version: '1',
        packages: [{ registryType: 'npm', identifier: 'x', transport: { type: 'stdio' } }],
      }),
    ).toBeUndefined();
  });

  it.each([
    [{ ...valid, name: 'no-slash' }, 'name'],
    [{ ...valid, description: 'x'.repeat(101) }, 'description'],
    [{ name: 'io.example/x', description: 'd' }, 'version'],
    [{ ...valid, remotes: [{ url: 'https://crm.example.com/mcp' }] }, 'remotes.0.type'],
    [{ ...valid, remotes: [{ type: 'streamable-http', url: 'ftp://crm.example.com' }] }, 'remotes.0.url'],
    [{ ...valid, websiteUrl: 'not a uri' }, 'websiteUrl'],
  ])('names the field of %j', (doc, path) => {
    expect(serverJsonProblem(doc)?.path).toBe(path);
  });
});
