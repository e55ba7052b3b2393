import { endianness } from 'node:os';
import type { UsageRecord } from './usage-record';

/** Stream entry field of a compact batch (binary, see `UsageBatchHeader`); entries of gateways from before it carry `r`, a JSON array of records. */
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
 * Columns of one record, each a little-endian int32: time since the batch's `t` (ms), then
 * tenant, method, tool, server, subject, client (−1: none), surface as indices into `d`,
 * outcome (+4 with a code), code (0 without), duration in hundredths of a ms, bytes in, bytes out.
 */
export const USAGE_BATCH_COLUMNS = 13;
const RECORD_BYTES = USAGE_BATCH_COLUMNS * 4;
const INT32_MAX = 2 ** 31 - 1;
const LITTLE_ENDIAN = endianness() === 'LE';

/**
 * The wire form of many records (one stream entry, binary): a uint32 (LE) length, that many
 * bytes of JSON header — every string of the batch once in `d`, captured arguments / results
 * (opt-in tenants only) in `x` — then 13 int32 columns per record. Written per batch rather than
 * per record: a record costs a few map lookups and 13 stores into a reused Int32Array on the
 * request path, and nothing per number when the batch is written (a JSON integer array costs
 * far more to serialize and measure).
 */
export interface UsageBatchHeader {
  v: 2;
  /** Epoch ms the record times are relative to. */
  t: number;
  d: string[];
  x?: Array<{ i: number; args?: unknown; result?: unknown }>;
}

/**
 * Collects records into one batch (see `UsageBatchHeader`). Strings are put in the batch's dictionary the first
 * time they appear in it (subjects by kind and id, so the `sub:…` string is built once per batch,
 * not per request). Time: the wall clock is read once, when the batch gets its first record, and
 * each record adds its monotonic distance from that moment.
 */
export class UsageBatchWriter {
  private dict: string[] = [];
  private ids = new Map<string, number>();
  private subjects = { sub: new Map<string, number>(), client: new Map<string, number>(), ip: new Map<string, number>() };
  /** Reused from batch to batch (take() copies out what it holds). */
  private cols = new Int32Array(USAGE_BATCH_COLUMNS * 64);
  private captured: NonNullable<UsageBatchHeader['x']> = [];
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
    let c = this.cols;
    const o = this.n * USAGE_BATCH_COLUMNS;
    if (o + USAGE_BATCH_COLUMNS > c.length) {
      const grown = new Int32Array(c.length * 2);
      grown.set(c);
      this.cols = c = grown;
    }
    // A JSON-RPC code outside int32 (an upstream's choice) is kept as an error without its code.
    const code = e.code !== undefined && (e.code | 0) === e.code ? e.code : undefined;
    c[o] = clamp(Math.round(e.endedAt - this.monoStart));
    c[o + 1] = this.id(e.tenant);
    c[o + 2] = this.id(e.method);
    c[o + 3] = this.id(e.tool);
    c[o + 4] = this.id(e.server);
    c[o + 5] = this.subject(e.subjectKind, e.subjectId);
    c[o + 6] = e.client === undefined ? -1 : this.id(e.client);
    c[o + 7] = this.id(e.surface);
    c[o + 8] = OUTCOME_INDEX[e.outcome] + (code === undefined ? 0 : HAS_CODE);
    c[o + 9] = code ?? 0;
    c[o + 10] = clamp(Math.round(e.ms * 100));
    c[o + 11] = clamp(e.in);
    c[o + 12] = clamp(e.out);
    if (e.args !== undefined || e.result !== undefined) this.captured.push({ i: this.n, args: e.args, result: e.result });
    this.n++;
  }

  /** The batch's bytes (one stream entry), and a fresh, empty batch after it. */
  take(): Buffer {
    const header: UsageBatchHeader = { v: 2, t: this.wallStart, d: this.dict };
    if (this.captured.length > 0) header.x = this.captured;
    const json = Buffer.from(JSON.stringify(header));
    const records = Buffer.from(this.cols.buffer, this.cols.byteOffset, this.n * RECORD_BYTES);
    const out = Buffer.allocUnsafe(4 + json.length + records.length);
    out.writeUInt32LE(json.length, 0);
    json.copy(out, 4);
    records.copy(out, 4 + json.length);
    if (!LITTLE_ENDIAN) out.subarray(4 + json.length).swap32();
    this.dict = [];
    this.ids = new Map();
    this.subjects = { sub: new Map(), client: new Map(), ip: new Map() };
    this.captured = [];
    this.n = 0;
    return out;
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

/** Within int32 (a duration, a size or an offset past 2^31−1 is not one a request has). */
function clamp(n: number): number {
  return n > INT32_MAX ? INT32_MAX : n;
}

/**
 * The records of one stream entry's `b` field, as they were added. Anything that is not a
 * well-formed batch yields nothing; a record whose columns do not resolve (an index outside the
 * dictionary) comes out with those fields undefined, for the reader's validation to drop — the
 * decoder itself never throws on what the stream holds.
 */
export function decodeUsageBatch(bytes: Buffer): unknown[] {
  if (bytes.length < 4) return [];
  const headerEnd = 4 + bytes.readUInt32LE(0);
  if (headerEnd > bytes.length || (bytes.length - headerEnd) % RECORD_BYTES !== 0) return [];
  let header: unknown;
  try {
    header = JSON.parse(bytes.toString('utf8', 4, headerEnd));
  } catch {
    return [];
  }
  if (typeof header !== 'object' || header === null) return [];
  const { v, t, d, x } = header as Record<string, unknown>;
  if (v !== 2 || typeof t !== 'number' || !Array.isArray(d)) return [];
  const at = (i: number): unknown => (i >= 0 && i < d.length ? d[i] : undefined);
  const records: Array<Record<string, unknown>> = [];
  for (let o = headerEnd; o < bytes.length; o += RECORD_BYTES) {
    const col = (k: number) => bytes.readInt32LE(o + 4 * k);
    const outcome = col(8);
    const known = outcome >= 0 && outcome < 2 * HAS_CODE;
    const client = col(6);
    records.push({
      t: t + col(0),
      tenant: at(col(1)),
      method: at(col(2)),
      tool: at(col(3)),
      server: at(col(4)),
      subject: at(col(5)),
      client: client === -1 ? undefined : (at(client) ?? null),
      surface: at(col(7)),
      outcome: known ? OUTCOMES[outcome % HAS_CODE] : undefined,
      code: known && outcome >= HAS_CODE ? col(9) : undefined,
      ms: col(10) / 100,
      in: col(11),
      out: col(12),
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
