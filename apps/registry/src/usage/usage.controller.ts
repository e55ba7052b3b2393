import { Controller, Get, Inject, Query, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { USAGE_LATENCY_BUCKETS_MS } from '@switchboard/limits';
import { parseInput } from '../http/parse-input';
import { ApiOperation, ApiTag } from '../docs/api-operation';
import { callsResponse, usageResponse } from '../docs/route-responses';
import { hasRole } from '../model/roles';
import { TenantGuard, Tenant } from '../http/tenant-guard';
import type { TenantPrincipal } from '../http/authenticator';
import { Database } from '../db/database';

const day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')
  .refine((d) => !Number.isNaN(Date.parse(d)), 'must be a real date');
const filterField = z.string().min(1).max(512);

export const usageQuery = z
  .object({
    from: day.optional(),
    to: day.optional(),
    tool: filterField.optional(),
    server: filterField.optional(),
    subject: filterField.optional(),
    /** `none`: one row per day × server × tool × subject; else summed per day, tool or subject. */
    groupBy: z.enum(['none', 'day', 'tool', 'subject']).default('none'),
    limit: z.coerce.number().int().min(1).max(1000).default(100),
    offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
    format: z.enum(['json', 'csv']).default('json'),
  })
  .strict();

export const callsQuery = z
  .object({
    from: z.iso.datetime({ offset: true }).optional(),
    to: z.iso.datetime({ offset: true }).optional(),
    tool: filterField.optional(),
    server: filterField.optional(),
    subject: filterField.optional(),
    outcome: z.enum(['ok', 'error', 'tool_error', 'rate_limited']).optional(),
    limit: z.coerce.number().int().min(1).max(200).default(50),
    /** `nextCursor` of the previous page (calls are newest first). */
    cursor: z
      .string()
      .regex(/^\d{1,19}$/, 'must be a nextCursor value')
      .optional(),
  })
  .strict();

/** Element-wise sums of the latency histograms (one per bucket, +Inf last). */
const LATENCY_SUMS = Array.from({ length: USAGE_LATENCY_BUCKETS_MS.length + 1 }, (_, i) => `sum(latency[${i + 1}])`).join(', ');

const COLUMNS = [
  'day',
  'server',
  'tool',
  'subject',
  'calls',
  'errors',
  'toolErrors',
  'rateLimited',
  'bytesIn',
  'bytesOut',
  'avgMs',
] as const;

interface UsageRow {
  day: string;
  server: string;
  tool: string;
  subject: string;
  calls: string;
  errors: string;
  toolErrors: string;
  rateLimited: string;
  bytesIn: string;
  bytesOut: string;
  durationMs: number;
  latency: string[];
}

/**
 * The calling tenant's usage rollups (GET /v1/usage, JSON or CSV) and call log (GET /v1/calls,
 * cursor-paginated). Every query filters on the caller's tenant id: nothing of another tenant
 * is reachable whatever the filters say.
 */
@Controller('v1')
@ApiTag('Usage')
export class UsageController {
  constructor(@Inject(Database) private readonly db: Database) {}

  @Get('usage')
  @ApiOperation({
    operationId: 'getUsage',
    summary:
      'Usage rollups (calls, errors, tool errors, rate-limited, bytes in/out, average latency and a latency histogram) per day × server × tool × subject, or summed by groupBy; format=csv downloads them (next page offset in X-Next-Offset)',
    auth: 'tenant',
    query: usageQuery,
    response: usageResponse,
  })
  @UseGuards(TenantGuard)
  async usage(@Tenant() { tenantId }: TenantPrincipal, @Query() query: unknown, @Res({ passthrough: true }) reply: FastifyReply) {
    const q = parseInput(usageQuery, query, 'query');
    const filter = tenantFilter(tenantId, q).and('day >= ?::date', q.from).and('day <= ?::date', q.to);
    const keep = { none: ['day', 'server_id', 'tool', 'subject'], day: ['day'], tool: ['server_id', 'tool'], subject: ['subject'] }[
      q.groupBy
    ];
    const col = (c: string) => (keep.includes(c) ? (c === 'day' ? "to_char(day, 'YYYY-MM-DD')" : c) : "''");
    const groupSql = keep.join(', ');
    const limit = filter.bind(q.limit + 1);
    const offset = filter.bind(q.offset);
    const rows = await this.db.query<UsageRow>(
      `SELECT ${col('day')} AS day, ${col('server_id')} AS server, ${col('tool')} AS tool, ${col('subject')} AS subject,
              sum(calls) AS calls, sum(errors) AS errors, sum(tool_errors) AS "toolErrors", sum(rate_limited) AS "rateLimited",
              sum(bytes_in) AS "bytesIn", sum(bytes_out) AS "bytesOut", sum(duration_ms) AS "durationMs",
              ARRAY[${LATENCY_SUMS}]::bigint[] AS latency
         FROM registry.usage_daily WHERE ${filter.where}
        GROUP BY ${groupSql} ORDER BY ${groupSql.replace('day', 'day DESC')} LIMIT ${limit} OFFSET ${offset}`,
      filter.params,
    );
    const page = rows.slice(0, q.limit).map((r) => {
      const calls = Number(r.calls);
      return {
        day: r.day,
        server: r.server,
        tool: r.tool,
        subject: r.subject,
        calls,
        errors: Number(r.errors),
        toolErrors: Number(r.toolErrors),
        rateLimited: Number(r.rateLimited),
        bytesIn: Number(r.bytesIn),
        bytesOut: Number(r.bytesOut),
        avgMs: calls > 0 ? Math.round((Number(r.durationMs) / calls) * 100) / 100 : 0,
        latency: { bucketsMs: [...USAGE_LATENCY_BUCKETS_MS, null], counts: (r.latency ?? []).map(Number) },
      };
    });
    const nextOffset = rows.length > q.limit ? q.offset + q.limit : null;
    if (q.format === 'csv') {
      reply.header('content-type', 'text/csv; charset=utf-8').header('content-disposition', `attachment; filename="usage-${tenantId}.csv"`);
      if (nextOffset !== null) reply.header('x-next-offset', String(nextOffset));
      return [COLUMNS.join(','), ...page.map((r) => COLUMNS.map((c) => csvCell(r[c])).join(','))].join('\r\n') + '\r\n';
    }
    return { usage: page, nextOffset, groupBy: q.groupBy };
  }

  @Get('calls')
  @ApiOperation({
    operationId: 'listCalls',
    summary:
      'The call log (tools/call, resources/read, prompts/get), newest first, cursor-paginated (nextCursor); arguments/results only when limits.callLog opts in, redacted, and only for the admin and owner roles (captures: withheld for others)',
    auth: 'tenant',
    query: callsQuery,
    response: callsResponse,
  })
  @UseGuards(TenantGuard)
  async calls(@Tenant() { tenantId, role }: TenantPrincipal, @Query() query: unknown) {
    // Captured arguments and results can hold what users typed and what tools answered: the
    // rows are for anyone who may read the tenant, the captures for those who administer it.
    const captures = hasRole(role, 'admin');
    const q = parseInput(callsQuery, query, 'query');
    const filter = tenantFilter(tenantId, q)
      .and('at >= ?::timestamptz', q.from)
      .and('at <= ?::timestamptz', q.to)
      .and('outcome = ?', q.outcome)
      .and('id < ?::bigint', q.cursor);
    const limit = filter.bind(q.limit + 1);
    const rows = await this.db.query<{ id: string } & Record<string, unknown>>(
      `SELECT id, at, subject, client_id AS "clientId", surface, method, tool, server_id AS server, outcome, error_code AS "errorCode",
              duration_ms AS "durationMs", bytes_in AS "bytesIn", bytes_out AS "bytesOut"${captures ? ', arguments, result' : ''}
         FROM registry.tool_calls WHERE ${filter.where} ORDER BY id DESC LIMIT ${limit}`,
      filter.params,
    );
    const page = rows.slice(0, q.limit);
    return {
      calls: page,
      nextCursor: rows.length > q.limit ? page[page.length - 1].id : null,
      captures: captures ? 'included' : 'withheld',
    };
  }
}

/** A WHERE clause over the caller's tenant and its bound parameters; `and` skips a filter the query left out. */
class SqlFilter {
  readonly params: unknown[];
  private readonly clauses = ['tenant_id = $1'];

  constructor(tenantId: string) {
    this.params = [tenantId];
  }

  /** Adds `sql` with its `?` bound to `value`, unless value is undefined. */
  and(sql: string, value: unknown): this {
    if (value !== undefined) this.clauses.push(sql.replace('?', this.bind(value)));
    return this;
  }

  /** Binds one more parameter (a LIMIT or OFFSET) and returns its placeholder. */
  bind(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  get where(): string {
    return this.clauses.join(' AND ');
  }
}

/** The filters both the usage rollups and the call log take: tool, server and subject. */
function tenantFilter(tenantId: string, q: { tool?: string; server?: string; subject?: string }): SqlFilter {
  return new SqlFilter(tenantId).and('tool = ?', q.tool).and('server_id = ?', q.server).and('subject = ?', q.subject);
}

/** RFC 4180 cell; a leading = + - @ is prefixed with ' so a spreadsheet never runs a subject or tool name as a formula. */
function csvCell(v: unknown): string {
  let s = String(v ?? '');
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}
