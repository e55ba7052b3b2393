import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CatalogError } from './catalog-error';
import { toolDefinitionsFromJson } from './tool-definitions-from-json';

const FIXTURE = path.resolve(__dirname, '../../../config/fixtures/saas-40-tools.json');

function failure(json: unknown): CatalogError {
  try {
    toolDefinitionsFromJson(json);
  } catch (err) {
    if (err instanceof CatalogError) return err;
    throw err;
  }
  throw new Error('expected a CatalogError');
}

const ok = { name: 'a', inputSchema: { type: 'object' } };

describe('toolDefinitionsFromJson', () => {
  it('loads the 40-tool fixture', () => {
    const tools = toolDefinitionsFromJson(JSON.parse(readFileSync(FIXTURE, 'utf8')));
    expect(tools).toHaveLength(40);
    expect(new Set(tools.map((t) => t.name)).size).toBe(40);
    expect(tools.filter((t) => t.securitySchemes).length).toBe(3);
    expect(tools.every((t) => t.title && t.annotations?.title && t.inputSchema.type === 'object')).toBe(true);
  });

  it('accepts a bare array and drops unknown fields', () => {
    expect(toolDefinitionsFromJson([{ ...ok, execution: { taskSupport: 'forbidden' } }])).toEqual([ok]);
  });

  it('names the index and field of a malformed tool', () => {
    expect(failure({ tools: [ok, { name: 'b' }] }).message).toBe('tools[1].inputSchema: must be an object');
    expect(failure({ tools: [{ name: 'b', inputSchema: { type: 'string' } }] }).message).toBe(
      'tools[0].inputSchema.type: must be "object"',
    );
    expect(failure({ tools: [{ ...ok, name: 3 }] }).message).toBe('tools[0].name: must be a non-empty string');
    expect(failure({ tools: [{ ...ok, annotations: { readOnlyHint: 'yes' } }] }).message).toBe(
      'tools[0].annotations.readOnlyHint: must be a boolean',
    );
    expect(failure({ tools: [{ ...ok, icons: [{ src: 'x', theme: 'blue' }] }] }).message).toBe(
      'tools[0].icons[0].theme: must be "light" or "dark"',
    );
    expect(failure({ tools: [{ ...ok, requiredScopes: [1] }] }).message).toBe('tools[0].requiredScopes: must be an array of strings');
    expect(failure({ tools: [{ ...ok, _meta: [] }] }).code).toBe('CATALOG_INVALID_DEFINITION');
  });

  it('rejects a document without a tools array', () => {
    expect(failure({}).message).toContain('tools: must be an array');
    expect(failure(null).code).toBe('CATALOG_INVALID_DEFINITION');
  });

  it('rejects duplicate names', () => {
    const err = failure([ok, ok]);
    expect(err.code).toBe('CATALOG_DUPLICATE_NAME');
    expect(err.message).toContain('tools[1].name');
  });
});
