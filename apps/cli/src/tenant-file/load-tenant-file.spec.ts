import { CliError, EXIT } from '../exit-codes';
import { parseTenantFile } from './load-tenant-file';

function refusal(text: string): CliError {
  try {
    parseTenantFile(text, 'tenant.yaml');
  } catch (err) {
    if (err instanceof CliError) return err;
    throw err;
  }
  throw new Error('the file was accepted');
}

const server = (extra = '') => `version: 1\nservers:\n  - id: crm\n    name: CRM\n    url: https://crm.example/mcp\n${extra}`;

describe('parseTenantFile', () => {
  it('accepts a server with a secret by env reference and publications', () => {
    const file = parseTenantFile(
      server('    auth: { mode: bearer, token: { fromEnv: CRM_TOKEN } }\n    publish:\n      - name: lookup\n'),
      'tenant.yaml',
    );
    expect(file.servers?.[0]).toEqual({
      id: 'crm',
      name: 'CRM',
      url: 'https://crm.example/mcp',
      auth: { mode: 'bearer', token: { fromEnv: 'CRM_TOKEN' } },
      publish: [{ name: 'lookup' }],
    });
  });

  it('refuses a secret written inline, naming the field (secrets are references only)', () => {
    const err = refusal(server('    auth: { mode: bearer, token: s3cret }\n'));
    expect(err.exitCode).toBe(EXIT.usage);
    expect(err.details.field).toBe('servers.0.auth.token');
    expect(err.message).toMatch(/^tenant\.yaml: servers\.0\.auth\.token: /);
    expect(err.message).not.toContain('s3cret');
  });

  it('names every problem of the file, each by its field', () => {
    const err = refusal('version: 1\nservers:\n  - id: Not_A_Label\n    name: x\n    url: not a url\n    colour: blue\n');
    expect(err.details.issues?.map((i) => i.field).sort()).toEqual(['servers.0', 'servers.0.id', 'servers.0.url']);
    expect(err.message).toContain('(and 2 more problems)');
  });

  it('refuses a server id or a published item listed twice', () => {
    const twice = `${server('    publish: [{ name: a }, { name: a }]\n')}  - id: crm\n    name: again\n    url: https://crm.example/mcp\n`;
    expect(
      refusal(twice)
        .details.issues?.map((i) => i.field)
        .sort(),
    ).toEqual(['servers.0.publish.1.name', 'servers.1.id']);
  });

  it('refuses YAML that does not parse, naming the line', () => {
    expect(refusal('version: 1\nservers: [\n').details.field).toMatch(/^line \d+$/);
  });

  it('refuses a file whose aliases expand past the bound instead of expanding them', () => {
    const lines = ['version: 1', 'a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 0; i < 8; i++)
      lines.push(
        `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(10)
          .fill(`*${String.fromCharCode(97 + i)}`)
          .join(', ')}]`,
      );
    const err = refusal(lines.join('\n'));
    expect(err.exitCode).toBe(EXIT.usage);
    expect(err.message).toContain('aliases may expand to at most 100 nodes');
  });

  it('refuses a file of another format version', () => {
    expect(refusal('version: 2\n').details.field).toBe('version');
  });
});
