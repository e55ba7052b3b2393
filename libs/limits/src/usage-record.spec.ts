import { encodeUsageRecord, type UsageRecord } from './usage-record';

const base: UsageRecord = {
  t: 1_764_806_400_123,
  tenant: 'acme',
  method: 'tools/call',
  tool: 'echo',
  server: 'local',
  subject: 'ip:127.0.0.1',
  client: undefined,
  surface: 'generic',
  outcome: 'ok',
  code: undefined,
  ms: 0.37,
  in: 98,
  out: 120,
  args: undefined,
  result: undefined,
};

describe('encodeUsageRecord', () => {
  const cases: Array<[string, Partial<UsageRecord>]> = [
    ['a plain record (optional fields absent)', {}],
    ['client and code present', { client: 'chatgpt', code: -32602, outcome: 'error' }],
    ['strings a tenant or caller controls: quotes, backslashes, control characters, non-ASCII, a lone surrogate', {
      tenant: 't"1\\', tool: 'na\u0000me\n\t\u001f', subject: 'sub:ünïcödé 🚀', server: 'up\u2028', surface: '\ud800x',
    }],
    ['captured arguments and result', { args: { text: 'hi', nested: [1, null, { a: '"' }] }, result: { content: [{ type: 'text', text: 'ok' }] } }],
    ['captured null and a captured string', { args: null, result: 'truncated…' }],
    ['numbers: zero, negative, large, fractional, non-finite', { t: 0, ms: 1e21, in: Number.NaN, out: Number.POSITIVE_INFINITY, code: -0 }],
  ];
  it.each(cases)('writes what JSON.stringify writes: %s', (_name, patch) => {
    const record = { ...base, ...patch };
    const encoded = encodeUsageRecord(record);
    expect(encoded).toBe(JSON.stringify(record));
    expect(JSON.parse(encoded)).toEqual(JSON.parse(JSON.stringify(record)));
  });

  it.each(['"', '\\', '\u0000', '\n', '\u001f', '\u007f', '\ud800', '\udfff', '\ud83d\ude80', '\u2028', 'é'])('escapes %j inside any string field exactly as JSON.stringify does', (c) => {
    for (const field of ['tenant', 'tool', 'server', 'subject', 'client', 'surface'] as const) {
      const record = { ...base, [field]: `a${c}b` };
      expect(encodeUsageRecord(record)).toBe(JSON.stringify(record));
    }
  });

  it('leaves out a captured value JSON.stringify cannot write', () => {
    const record = { ...base, args: () => 1, result: Symbol('x') } as unknown as UsageRecord;
    expect(encodeUsageRecord(record)).toBe(JSON.stringify(record));
  });
});
