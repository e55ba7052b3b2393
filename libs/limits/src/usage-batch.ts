import type { UsageRecord } from './usage-record';

/** Stream entry field of a compact batch (`UsageBatch`); entries of gateways from before it carry `r`, a JSON array of records. */
export const USAGE_BATCH_FIELD = 'b';
/** Stream entry field of the first format (a JSON array of `UsageRecord`s), still read so a rolling upgrade loses nothing. */
export const USAGE_RECORDS_FIELD = 'r';

/** How the caller was identified: its OAuth `sub`, its OAuth client id, or its address. */
export type UsageSubjectKind = 'sub' | 'client' | 'ip';

/** One request as the gateway hands it to a batch: a `UsageRecord` with its subject in parts and its end on the monotonic clock. */
export interface UsageEvent {
  /** `performance.now()` when the request ended; the batch turns it into epoch ms. */
  endedAt: number;
  tenant: string;
  method: string;
  tool: string;
  server: string;
  subjectKind: UsageSubjectKind;
  subjectId: string;
  client: string | undefined;
  surface: string;
  outcome: UsageRecord['outcome'];
  code: number | undefined;
  ms: number;
  in: number;
  out: number;
  args: unknown;
  result: unknown;
}

const OUTCOMES = ['ok', 'error', 'tool_error', 'rate_limited'] as const;
const OUTCOME_INDEX: Record<UsageRecord['outcome'], number> = { ok: 0, error: 1, tool_error: 2, rate_limited: 3 };
/** Added to the outcome column when the record has an error code. */
const HAS_CODE = 4;
/**
 * Columns of one record in `r`: time since the batch's `t` (ms), then tenant, method, tool,
 * server, subject, client (−1: none), surface as indices into `d`, outcome (+4 with a code),
 * code (0 without), duration in hundredths of a ms, bytes in, bytes out.
 */
export const USAGE_BATCH_COLUMNS = 13;

/**
 * The wire form of many records (one stream entry): every string once in `d`, each record as
 * 13 small integers in `r`, captured arguments / results (opt-in tenants only) beside them in `x`.
 * Written per batch rather than per record: a record costs a few map lookups and array pushes on
 * the request path instead of a JSON string, and the flat integer array serializes on V8's fast path.
 */
export interface UsageBatch {
  v: 2;
  /** Epoch ms the record times are relative to. */
  t: number;
  d: string[];
  r: number[];
  x?: Array<{ i: number; args?: unknown; result?: unknown }>;
}

/**
 * Collects records into one `UsageBatch`. Strings are put in the batch's dictionary the first
 * time they appear in it (subjects by kind and id, so the `sub:…` string is built once per batch,
 * not per request). Time: the wall clock is read once, when the batch gets its first record, and
 * each record adds its monotonic distance from that moment.
 */
export class UsageBatchWriter {
  private dict: string[] = [];
  private ids = new Map<string, number>();
  private subjects = { sub: new Map<string, number>(), client: new Map<string, number>(), ip: new Map<string, number>() };
  private cols: number[] = [];
  private captured: NonNullable<UsageBatch['x']> = [];
  private wallStart = 0;
  private monoStart = 0;
  private n = 0;

  /** Records in the batch. */
  get count(): number {
    return this.n;
  }

  add(e: UsageEvent): void {
    if (this.n === 0) {
      this.wallStart = Date.now();
      this.monoStart = e.endedAt;
    }
    const c = this.cols;
    c.push(
      Math.round(e.endedAt - this.monoStart),
      this.id(e.tenant),
      this.id(e.method),
      this.id(e.tool),
      this.id(e.server),
      this.subject(e.subjectKind, e.subjectId),
      e.client === undefined ? -1 : this.id(e.client),
      this.id(e.surface),
      OUTCOME_INDEX[e.outcome] + (e.code === undefined ? 0 : HAS_CODE),
      e.code ?? 0,
      Math.round(e.ms * 100),
      e.in,
      e.out,
    );
    if (e.args !== undefined || e.result !== undefined) this.captured.push({ i: this.n, args: e.args, result: e.result });
    this.n++;
  }

  /** The batch's JSON (one stream entry) and a fresh, empty batch after it. */
  take(): string {
    const batch: UsageBatch = { v: 2, t: this.wallStart, d: this.dict, r: this.cols };
    if (this.captured.length > 0) batch.x = this.captured;
    const text = JSON.stringify(batch);
    this.dict = [];
    this.ids = new Map();
    this.subjects = { sub: new Map(), client: new Map(), ip: new Map() };
    this.cols = [];
    this.captured = [];
    this.n = 0;
    return text;
  }

  private id(s: string): number {
    let i = this.ids.get(s);
    if (i === undefined) {
      i = this.dict.push(s) - 1;
      this.ids.set(s, i);
    }
    return i;
  }

  private subject(kind: UsageSubjectKind, value: string): number {
    const byKind = this.subjects[kind];
    let i = byKind.get(value);
    if (i === undefined) {
      i = this.id(`${kind}:${value}`);
      byKind.set(value, i);
    }
    return i;
  }
}

/**
 * The records of one stream entry's `b` field, as they were added. Anything that is not a
 * well-formed batch yields nothing; a record whose columns do not resolve (an index outside the
 * dictionary, a non-integer) comes out with those fields undefined, for the reader's validation
 * to drop — the decoder itself never throws on what the stream holds.
 */
export function decodeUsageBatch(text: string): unknown[] {
  let batch: unknown;
  try {
    batch = JSON.parse(text);
  } catch {
    return [];
  }
  if (typeof batch !== 'object' || batch === null) return [];
  const { v, t, d, r, x } = batch as Record<string, unknown>;
  if (v !== 2 || typeof t !== 'number' || !Array.isArray(d) || !Array.isArray(r) || r.length % USAGE_BATCH_COLUMNS !== 0) return [];
  const at = (v: unknown): unknown => (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v < d.length ? d[v] : undefined);
  const records: Array<Record<string, unknown>> = [];
  for (let o = 0; o < r.length; o += USAGE_BATCH_COLUMNS) {
    const outcome = r[o + 8];
    const known = typeof outcome === 'number' && Number.isInteger(outcome) && outcome >= 0 && outcome < 2 * HAS_CODE;
    const dt = r[o];
    const ms = r[o + 10];
    const client = r[o + 6];
    records.push({
      t: typeof dt === 'number' ? t + dt : undefined,
      tenant: at(r[o + 1]),
      method: at(r[o + 2]),
      tool: at(r[o + 3]),
      server: at(r[o + 4]),
      subject: at(r[o + 5]),
      client: client === -1 ? undefined : (at(client) ?? null),
      surface: at(r[o + 7]),
      outcome: known ? OUTCOMES[outcome % HAS_CODE] : undefined,
      code: known && outcome >= HAS_CODE ? r[o + 9] : undefined,
      ms: typeof ms === 'number' ? ms / 100 : undefined,
      in: r[o + 11],
      out: r[o + 12],
    });
  }
  if (Array.isArray(x)) {
    for (const c of x as unknown[]) {
      if (typeof c !== 'object' || c === null) continue;
      const { i, args, result } = c as Record<string, unknown>;
      const rec = typeof i === 'number' && Number.isInteger(i) && i >= 0 ? records[i] : undefined;
      if (!rec) continue;
      if (args !== undefined) rec.args = args;
      if (result !== undefined) rec.result = result;
    }
  }
  return records;
}
