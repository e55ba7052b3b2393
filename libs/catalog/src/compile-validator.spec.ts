import { SchemaCompiler, compileValidator } from './compile-validator';

describe('compileValidator', () => {
  const schema = {
    type: 'object',
    properties: {
      text: { type: 'string' },
      user: { type: 'object', properties: { email: { type: 'string', format: 'email' } }, required: ['email'] },
      tags: { type: 'array', items: { type: 'string' } },
      mode: { type: 'string', enum: ['a', 'b'] },
    },
    required: ['text'],
    additionalProperties: false,
  };

  it('accepts valid arguments', () => {
    expect(compileValidator(schema)({ text: 'hi', user: { email: 'a@b.co' }, tags: ['x'] })).toBeNull();
  });

  it('names a missing required property', () => {
    expect(compileValidator(schema)({})).toBe('text: is required');
    expect(compileValidator(schema)({ text: 'x', user: {} })).toBe('user.email: is required');
  });

  it('names the field path of a type error', () => {
    expect(compileValidator(schema)({ text: 1 })).toBe('text: must be string');
    expect(compileValidator(schema)({ text: 'x', tags: ['ok', 2] })).toBe('tags[1]: must be string');
  });

  it('checks formats (ajv-formats)', () => {
    expect(compileValidator(schema)({ text: 'x', user: { email: 'nope' } })).toBe('user.email: must match format "email"');
  });

  it('names an additional property and lists enum values', () => {
    expect(compileValidator(schema)({ text: 'x', extra: true })).toBe('extra: is not an allowed property');
    expect(compileValidator(schema)({ text: 'x', mode: 'c' })).toBe('mode: must be one of "a", "b"');
  });

  it('names the root as arguments when they are not an object', () => {
    expect(compileValidator(schema)('str')).toBe('arguments: must be object');
  });

  it('uses JSON Schema 2020-12 by default ($defs, prefixItems)', () => {
    const v = compileValidator({
      type: 'object',
      $defs: { pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }] } },
      properties: { p: { $ref: '#/$defs/pair' } },
    });
    expect(v({ p: ['a', 1] })).toBeNull();
    expect(v({ p: ['a', 'b'] })).toBe('p[1]: must be integer');
  });

  it('keeps a 2020-12 $schema declaration working', () => {
    const v = compileValidator({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { n: { type: 'number' } },
    });
    expect(v({ n: 'x' })).toBe('n: must be number');
  });

  it('uses draft-07 when $schema says so (SDK 1.x zod schemas)', () => {
    // In draft-07, `items` as an array is tuple validation; 2020-12 would reject that form.
    const v = compileValidator({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { t: { type: 'array', items: [{ type: 'string' }, { type: 'number' }] } },
    });
    expect(v({ t: ['a', 2] })).toBeNull();
    expect(v({ t: ['a', 'b'] })).toBe('t[1]: must be number');
  });

  it('returns the cached validator for the same schema content from one compiler, and shares nothing between compilers', () => {
    const compiler = new SchemaCompiler();
    const a = compiler.compile({ type: 'object', properties: { q: { type: 'string' } } });
    const b = compiler.compile({ properties: { q: { type: 'string' } }, type: 'object' });
    expect(b).toBe(a);
    expect(new SchemaCompiler().compile({ type: 'object', properties: { q: { type: 'string' } } })).not.toBe(a);
  });

  it('compiles two schemas with the same $id without conflict', () => {
    const compiler = new SchemaCompiler();
    const a = compiler.compile({ $id: 'https://x.example/s', type: 'object', properties: { a: { type: 'string' } } });
    const b = compiler.compile({ $id: 'https://x.example/s', type: 'object', properties: { a: { type: 'number' } } });
    expect(a({ a: 1 })).toBe('a: must be string');
    expect(b({ a: 'x' })).toBe('a: must be number');
  });

  it('reports an uncompilable schema and then accepts any object', () => {
    const errors: Error[] = [];
    const v = compileValidator({ type: 'object', properties: { a: { $ref: 'https://remote.example/schema.json' } } }, (e) =>
      errors.push(e),
    );
    expect(errors).toHaveLength(1);
    expect(v({ a: 1 })).toBeNull();
    expect(v([1])).toBe('arguments: must be object');
  });
});

describe('compileValidator on the linear-time engine', () => {
  it('answers ^(a+)+$ against 40 × "a" + "!" with a pattern error (V8 would backtrack for hours)', () => {
    const v = compileValidator({ type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } } });
    expect(v({ s: `${'a'.repeat(40)}!` })).toBe('s: must match pattern "^(a+)+$"');
    expect(v({ s: 'aaaa' })).toBeNull();
  });

  it('runs patternProperties on RE2 too', () => {
    const v = compileValidator({ type: 'object', patternProperties: { '^(x+)+$': { type: 'number' } } });
    expect(v({ [`${'x'.repeat(40)}`]: 'no' })).toBe(`${'x'.repeat(40)}: must be number`);
    expect(v({ [`${'x'.repeat(40)}!`]: 'free' })).toBeNull();
  });

  it('refuses every call of a schema with a lookahead, naming the pointer, and reports it', () => {
    const errors: Error[] = [];
    const v = compileValidator({ type: 'object', properties: { code: { type: 'string', pattern: '^(?=.*\\d).+$' } } }, (e) =>
      errors.push(e),
    );
    expect(v({ code: 'a1' })).toBe(
      'inputSchema/properties/code/pattern: pattern is not supported (lookahead (?=…) (needs a backtracking engine)); the tool is refused until its server drops it',
    );
    expect(errors[0]?.message).toMatch(/not supported: lookahead/);
  });

  it.each([
    ['hostname', 'api.example.com', `${'a'.repeat(64)}.com`],
    ['duration', 'P1DT2H', 'PT'],
    ['url', 'https://example.com/a', 'example.com'],
    ['email', 'a@b.co', 'nope'],
    ['uuid', '123e4567-e89b-12d3-a456-426614174000', 'x'],
    ['uri', 'https://example.com/a?b#c', '/relative'],
    ['ipv6', '::1', '::g'],
  ])('keeps format %s (now on RE2) accepting %j and refusing %j', (format, good, bad) => {
    const v = compileValidator({ type: 'object', properties: { f: { type: 'string', format } } });
    expect(v({ f: good })).toBeNull();
    expect(v({ f: bad })).toBe(`f: must match format "${format}"`);
  });
});
