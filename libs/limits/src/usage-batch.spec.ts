import { decodeUsageBatch, USAGE_BATCH_COLUMNS, UsageBatchWriter, type UsageBatch, type UsageEvent } from './usage-batch';

const event = (over: Partial<UsageEvent> = {}): UsageEvent => ({
  endedAt: 5_000,
  tenant: 'acme',
  method: 'tools/call',
  tool: 'lookup',
  server: 'crm',
  subjectKind: 'ip',
  subjectId: '10.0.0.1',
  client: undefined,
  surface: 'claude',
  outcome: 'ok',
  code: undefined,
  ms: 1.23456,
  in: 120,
  out: 4096,
  args: undefined,
  result: undefined,
  ...over,
});

afterEach(() => jest.restoreAllMocks());

describe('UsageBatchWriter and decodeUsageBatch', () => {
  it('gives back each record as the registry stores it: subject joined, ms in hundredths, absent fields absent', () => {
    jest.spyOn(Date, 'now').mockReturnValue(1_800_000_000_000);
    const w = new UsageBatchWriter();
    w.add(event());
    w.add(event({ endedAt: 5_250.6, subjectKind: 'sub', subjectId: 'alice', client: 'cl-1', outcome: 'rate_limited', code: -32029, ms: 0.004, in: 0, out: 0 }));
    w.add(event({ endedAt: 5_900, subjectKind: 'client', subjectId: 'cl-1', client: 'cl-1', outcome: 'tool_error', args: { q: 'x' }, result: null }));
    expect(w.count).toBe(3);
    const records = decodeUsageBatch(w.take());
    expect(records).toEqual([
      { t: 1_800_000_000_000, tenant: 'acme', method: 'tools/call', tool: 'lookup', server: 'crm', subject: 'ip:10.0.0.1', client: undefined, surface: 'claude', outcome: 'ok', code: undefined, ms: 1.23, in: 120, out: 4096 },
      { t: 1_800_000_000_251, tenant: 'acme', method: 'tools/call', tool: 'lookup', server: 'crm', subject: 'sub:alice', client: 'cl-1', surface: 'claude', outcome: 'rate_limited', code: -32029, ms: 0, in: 0, out: 0 },
      { t: 1_800_000_000_900, tenant: 'acme', method: 'tools/call', tool: 'lookup', server: 'crm', subject: 'client:cl-1', client: 'cl-1', surface: 'claude', outcome: 'tool_error', code: undefined, ms: 1.23, in: 120, out: 4096, args: { q: 'x' }, result: null },
    ]);
    // The same duration rounding the per-record format had.
    expect((records[0] as { ms: number }).ms).toBe(Math.round(1.23456 * 100) / 100);
  });

  it('writes every string once and every record as integers; a subject kind never shares another kind\'s entry', () => {
    const w = new UsageBatchWriter();
    for (let i = 0; i < 50; i++) w.add(event({ ms: i / 7, out: i }));
    w.add(event({ subjectKind: 'sub', subjectId: '10.0.0.1' }));
    w.add(event({ subjectKind: 'client', subjectId: '10.0.0.1', client: 'acme' }));
    const batch = JSON.parse(w.take()) as UsageBatch;
    expect(batch.d).toEqual(['acme', 'tools/call', 'lookup', 'crm', 'ip:10.0.0.1', 'claude', 'sub:10.0.0.1', 'client:10.0.0.1']);
    expect(batch.r).toHaveLength(52 * USAGE_BATCH_COLUMNS);
    expect(batch.r.every((n) => Number.isInteger(n))).toBe(true);
    expect(batch.x).toBeUndefined();
    const subjects = decodeUsageBatch(JSON.stringify(batch)).map((r) => (r as { subject: string }).subject);
    expect(subjects.slice(-3)).toEqual(['ip:10.0.0.1', 'sub:10.0.0.1', 'client:10.0.0.1']);
  });

  it('starts every batch afresh: its own dictionary, its own clock reading', () => {
    const now = jest.spyOn(Date, 'now').mockReturnValue(1_000);
    const w = new UsageBatchWriter();
    w.add(event({ tenant: 'first' }));
    w.take();
    expect(w.count).toBe(0);
    now.mockReturnValue(9_000);
    w.add(event({ tenant: 'second', endedAt: 70_000 }));
    const batch = JSON.parse(w.take()) as UsageBatch;
    expect(batch.t).toBe(9_000);
    expect(batch.d[0]).toBe('second');
    expect(batch.d).not.toContain('first');
    expect(decodeUsageBatch(JSON.stringify(batch))).toMatchObject([{ t: 9_000, tenant: 'second' }]);
  });

  it('keeps strings that need escaping intact', () => {
    const odd = 'a"b\\c\n\u0001\u2028é😀';
    const w = new UsageBatchWriter();
    w.add(event({ tool: odd, subjectKind: 'sub', subjectId: odd }));
    expect(decodeUsageBatch(w.take())).toMatchObject([{ tool: odd, subject: `sub:${odd}` }]);
  });
});

describe('decodeUsageBatch on what it must not trust', () => {
  const good = (): UsageBatch => {
    const w = new UsageBatchWriter();
    w.add(event());
    return JSON.parse(w.take()) as UsageBatch;
  };

  it.each([
    ['not JSON', '{"v":2,'],
    ['not an object', '[1,2,3]'],
    ['null', 'null'],
    ['another version', JSON.stringify({ ...good(), v: 3 })],
    ['no time', JSON.stringify({ ...good(), t: 'now' })],
    ['no dictionary', JSON.stringify({ ...good(), d: {} })],
    ['a partial record', JSON.stringify({ ...good(), r: good().r.slice(0, -1) })],
  ])('yields nothing for %s', (_, text) => {
    expect(decodeUsageBatch(text)).toEqual([]);
  });

  it('leaves fields whose column does not resolve undefined (or null for a client), for validation to drop', () => {
    const b = good();
    const r = [...b.r];
    r[1] = 99; // tenant outside the dictionary
    r[2] = -1; // method
    r[3] = 0.5; // tool
    r[4] = 'length' as unknown as number; // server: not an index, whatever the array has under that name
    r[6] = 42; // client: an index outside the dictionary
    r[8] = 9; // outcome
    const [rec] = decodeUsageBatch(JSON.stringify({ ...b, r })) as Array<Record<string, unknown>>;
    expect(rec).toMatchObject({ tenant: undefined, method: undefined, tool: undefined, server: undefined, client: null, outcome: undefined, code: undefined });
    expect(rec.subject).toBe('ip:10.0.0.1');
  });

  it('attaches captures only to records that exist', () => {
    const b = { ...good(), x: [{ i: 0, args: { a: 1 } }, { i: 1, args: 'nobody' }, { i: -1 }, { i: '0', result: 'no' }, null, 7] };
    expect(decodeUsageBatch(JSON.stringify(b))).toMatchObject([{ args: { a: 1 } }]);
    expect(decodeUsageBatch(JSON.stringify(b))[0]).not.toHaveProperty('result');
  });
});
