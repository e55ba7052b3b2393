import { checkParamHeaders, headerParamsOf } from './check-param-headers';

const schema = {
  type: 'object',
  properties: {
    region: { type: 'string', 'x-mcp-header': 'Region' },
    priority: { type: 'integer', 'x-mcp-header': 'Priority' },
    verbose: { type: 'boolean', 'x-mcp-header': 'Verbose' },
    query: { type: 'string' },
    score: { type: 'number', 'x-mcp-header': 'Score' },
    spaced: { type: 'string', 'x-mcp-header': 'My Region' },
    dup: { type: 'string', 'x-mcp-header': 'region' },
  },
};

const params = headerParamsOf(schema);
const b64 = (s: string) => `=?base64?${Buffer.from(s).toString('base64')}?=`;
const rejection = (fn: () => void) => {
  try {
    fn();
  } catch (err) {
    return err as { code: number; httpStatus: number; message: string };
  }
  throw new Error('expected a rejection');
};

describe('SEP-2243 Mcp-Param headers', () => {
  it('finds the valid annotations only (string/integer/boolean, valid names, unique case-insensitively)', () => {
    expect(params).toEqual([
      { argument: 'region', header: 'Region' },
      { argument: 'priority', header: 'Priority' },
      { argument: 'verbose', header: 'Verbose' },
    ]);
    expect(headerParamsOf({ type: 'object' })).toEqual([]);
  });

  it('accepts matching values: literal, Base64 sentinel, numbers and booleans as JSON text, omitted nulls', () => {
    expect(() =>
      checkParamHeaders(
        params,
        { region: 'eu', priority: 3, verbose: true },
        { 'mcp-param-region': 'eu', 'mcp-param-priority': '3', 'mcp-param-verbose': 'true' },
      ),
    ).not.toThrow();
    expect(() => checkParamHeaders(params, { region: 'Zürich ' }, { 'mcp-param-region': b64('Zürich ') })).not.toThrow();
    expect(() => checkParamHeaders(params, { region: '=?base64?SGVsbG8=' }, { 'mcp-param-region': '=?base64?SGVsbG8=' })).not.toThrow();
    expect(() => checkParamHeaders(params, { region: null }, {})).not.toThrow();
  });

  it.each([
    [{ region: 'eu' }, {}, /Mcp-Param-Region header is missing/],
    [{ region: 'eu' }, { 'mcp-param-region': 'us' }, /does not match params.arguments.region/],
    [{ region: 'Hello' }, { 'mcp-param-region': '=?base64?SGVsbG8?=' }, /not canonical Base64/],
    [{ region: 'Hello' }, { 'mcp-param-region': '=?base64?SGVs!!!bG8=?=' }, /not canonical Base64/],
    [{}, { 'mcp-param-region': 'eu' }, /absent/],
    [{ priority: 3 }, { 'mcp-param-priority': '03' }, /does not match/],
  ])('refuses %j with %j: 400 + -32020 naming the header', (args, headers, message) => {
    const error = rejection(() => checkParamHeaders(params, args, headers));
    expect(error.code).toBe(-32020);
    expect(error.httpStatus).toBe(400);
    expect(error.message).toMatch(message);
  });
});
