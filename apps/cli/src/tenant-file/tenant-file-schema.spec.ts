import { readFileSync } from 'node:fs';
import path from 'node:path';
import { tenantFileJsonSchema } from './tenant-file-schema';

const PUBLISHED = path.join(__dirname, '../../schema/tenant-file.schema.json');

describe('the published JSON Schema of the tenant file', () => {
  it('is what the file schema generates (regenerate: switchboard schema > apps/cli/schema/tenant-file.schema.json)', () => {
    expect(JSON.parse(readFileSync(PUBLISHED, 'utf8'))).toEqual(tenantFileJsonSchema());
  });

  it('describes secrets as environment references only', () => {
    const text = readFileSync(PUBLISHED, 'utf8');
    expect(text).toContain('"fromEnv"');
    const schema = tenantFileJsonSchema() as { properties: Record<string, unknown> };
    expect(Object.keys(schema.properties).sort()).toEqual([
      '$schema',
      'auth',
      'guardrails',
      'limits',
      'servers',
      'surfaceRules',
      'tenant',
      'version',
    ]);
  });
});
