import { decodeUsageBatch, USAGE_BATCH_COLUMNS, UsageBatchWriter, type UsageBatchHeader, type UsageEvent } from './usage-batch';

/** A batch's parts: its JSON header and its int32 columns. */
function parts(bytes: Buffer): { header: UsageBatchHeader; r: number[] } {
  const end = 4 + bytes.readUInt32LE(0);
  const r: number[] = [];
  for (let o = end; o < bytes.length; o += 4) r.push(bytes.readInt32LE(o));
  return { header: JSON.parse(bytes.toString('utf8', 4, end)) as UsageBatchHeader, r };
}

/** The bytes of a batch with this header and these columns. */
function bytesOf(header: unknown, r: number[]): Buffer {
  const json = Buffer.from(typeof header === 'string' ? header : JSON.stringify(header));
  const out = Buffer.alloc(4 + json.length + 4 * r.length);
  out.writeUInt32LE(json.length, 0);
  json.copy(out, 4);
  r.forEach((n, i) => out.writeInt32LE(n, 4 + json.length + 4 * i));
  return out;
}

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
    w.add(
      event({
        endedAt: 5_250.6,
        subjectKind: 'sub',
        subjectId: 'alice',
        client: 'cl-1',
        outcome: 'rate_limited',
        code: -32029,
        ms: 0.004,
        in: 0,
        out: 0,
      }),
    );
    w.add(
      event({
        endedAt: 5_900,
        subjectKind: 'client',
        subjectId: 'cl-1',
        client: 'cl-1',
        outcome: 'tool_error',
        args: { q: 'x' },
        result: null,
      }),
    );
    expect(w.count).toBe(3);
    const records = decodeUsageBatch(w.take());
    expect(records).toEqual([
      {
        t: 1_800_000_000_000,
        tenant: 'acme',
        method: 'tools/call',
        tool: 'lookup',
        server: 'crm',
        subject: 'ip:10.0.0.1',
        client: undefined,
        surface: 'claude',
        outcome: 'ok',
        code: undefined,
        ms: 1.23,
        in: 120,
        out: 4096,
      },
      {
        t: 1_800_000_000_251,
        tenant: 'acme',
        method: 'tools/call',
        tool: 'lookup',
        server: 'crm',
        subject: 'sub:alice',
        client: 'cl-1',
        surface: 'claude',
        outcome: 'rate_limited',
        code: -32029,
        ms: 0,
        in: 0,
        out: 0,
      },
      {
        t: 1_800_000_000_900,
        tenant: 'acme',
        method: 'tools/call',
        tool: 'lookup',
        server: 'crm',
        subject: 'client:cl-1',
        client: 'cl-1',
        surface: 'claude',
        outcome: 'tool_error',
        code: undefined,
        ms: 1.23,
        in: 120,
        out: 4096,
        args: { q: 'x' },
        result: null,
      },
    ]);
    // The same duration rounding the per-record format had.
    expect((records[0] as { ms: number }).ms).toBe(Math.round(1.23456 * 100) / 100);
  });

  it("writes every string once and every record as integers; a subject kind never shares another kind's entry", () => {
    const w = new UsageBatchWriter();
    for (let i = 0; i < 50; i++) w.add(event({ ms: i / 7, out: i }));
    w.add(event({ subjectKind: 'sub', subjectId: '10.0.0.1' }));
    w.add(event({ subjectKind: 'client', subjectId: '10.0.0.1', client: 'acme' }));
    const bytes = w.take();
    const { header, r } = parts(bytes);
    expect(header.d).toEqual(['acme', 'tools/call', 'lookup', 'crm', 'ip:10.0.0.1', 'claude', 'sub:10.0.0.1', 'client:10.0.0.1']);
    expect(r).toHaveLength(52 * USAGE_BATCH_COLUMNS);
    expect(header.x).toBeUndefined();
    const subjects = decodeUsageBatch(bytes).map((rec) => (rec as { subject: string }).subject);
    expect(subjects.slice(-3)).toEqual(['ip:10.0.0.1', 'sub:10.0.0.1', 'client:10.0.0.1']);
  });

  it('keeps numbers within int32: a larger size or duration is clamped, a larger error code dropped (the call still counts as an error)', () => {
    const w = new UsageBatchWriter();
    w.add(event({ out: 2 ** 40, in: 2 ** 31, ms: 1e12, outcome: 'error', code: 1e20 }));
    w.add(event({ outcome: 'error', code: -(2 ** 31) }));
    expect(decodeUsageBatch(w.take())).toMatchObject([
      { out: 2 ** 31 - 1, in: 2 ** 31 - 1, ms: (2 ** 31 - 1) / 100, outcome: 'error', code: undefined },
      { outcome: 'error', code: -(2 ** 31) },
    ]);
  });

  it('grows past its first capacity and reuses it for the next batch', () => {
    const w = new UsageBatchWriter();
    for (let i = 0; i < 1000; i++) w.add(event({ out: i }));
    expect(decodeUsageBatch(w.take()).map((rec) => (rec as { out: number }).out)).toEqual(Array.from({ length: 1000 }, (_, i) => i));
    w.add(event({ out: 7 }));
    expect(decodeUsageBatch(w.take())).toMatchObject([{ out: 7 }]);
  });

  it('starts every batch afresh: its own dictionary, its own clock reading', () => {
    const now = jest.spyOn(Date, 'now').mockReturnValue(1_000);
    const w = new UsageBatchWriter();
    w.add(event({ tenant: 'first' }));
    w.take();
    expect(w.count).toBe(0);
    now.mockReturnValue(9_000);
    w.add(event({ tenant: 'second', endedAt: 70_000 }));
    const bytes = w.take();
    const { header } = parts(bytes);
    expect(header.t).toBe(9_000);
    expect(header.d[0]).toBe('second');
    expect(header.d).not.toContain('first');
    expect(decodeUsageBatch(bytes)).toMatchObject([{ t: 9_000, tenant: 'second' }]);
  });

  it('keeps strings that need escaping intact', () => {
    const odd = 'a"b\\c\n\u0001\u2028é😀';
    const w = new UsageBatchWriter();
    w.add(event({ tool: odd, subjectKind: 'sub', subjectId: odd }));
    expect(decodeUsageBatch(w.take())).toMatchObject([{ tool: odd, subject: `sub:${odd}` }]);
  });
});

describe('decodeUsageBatch on what it must not trust', () => {
  const good = () => {
    const w = new UsageBatchWriter();
    w.add(event());
    return parts(w.take());
  };

  it.each([
    ['no bytes', Buffer.alloc(0)],
    ['a header length past the end', Buffer.from('{"v":2,"t":1}')],
    ['a header that is not JSON', bytesOf('{"v":2,', [])],
    ['a header that is not an object', bytesOf([1, 2, 3], [])],
    ['another version', bytesOf({ ...good().header, v: 3 }, good().r)],
    ['no time', bytesOf({ ...good().header, t: 'now' }, good().r)],
    ['no dictionary', bytesOf({ ...good().header, d: {} }, good().r)],
  ])('yields nothing for %s', (_, bytes) => {
    expect(decodeUsageBatch(bytes)).toEqual([]);
  });

  it('yields nothing for a partial record', () => {
    const { header, r } = good();
    const bytes = bytesOf(header, r);
    expect(decodeUsageBatch(bytes.subarray(0, bytes.length - 2))).toEqual([]);
    expect(decodeUsageBatch(bytes)).toHaveLength(1);
  });

  it('leaves fields whose column does not resolve undefined (or null for a client), for validation to drop', () => {
    const { header, r } = good();
    r[1] = 99; // tenant outside the dictionary
    r[2] = -1; // method
    r[6] = 42; // client: an index outside the dictionary
    r[8] = 9; // outcome
    const [rec] = decodeUsageBatch(bytesOf(header, r)) as Array<Record<string, unknown>>;
    expect(rec).toMatchObject({ tenant: undefined, method: undefined, tool: 'lookup', client: null, outcome: undefined, code: undefined });
    expect(rec.subject).toBe('ip:10.0.0.1');
  });

  it('attaches captures only to records that exist', () => {
    const { header, r } = good();
    const bytes = bytesOf(
      { ...header, x: [{ i: 0, args: { a: 1 } }, { i: 1, args: 'nobody' }, { i: -1 }, { i: '0', result: 'no' }, null, 7] },
      r,
    );
    expect(decodeUsageBatch(bytes)).toMatchObject([{ args: { a: 1 } }]);
    expect(decodeUsageBatch(bytes)[0]).not.toHaveProperty('result');
  });
});
