import { setTimeout as delay } from 'node:timers/promises';
import type { CallRow } from '@switchboard/admin-api';
import { usageError } from '../exit-codes';
import { fields, table } from '../output';
import { str, type Command, type CommandContext } from './command';

const usage: Command = {
  name: 'usage',
  summary: 'Daily usage rollups (calls, errors, bytes, latency)',
  positionals: { min: 0, max: 0 },
  options: {
    from: { type: 'string', value: '<YYYY-MM-DD>', description: 'first day' },
    to: { type: 'string', value: '<YYYY-MM-DD>', description: 'last day' },
    tool: { type: 'string', value: '<name>', description: 'only this tool' },
    server: { type: 'string', value: '<id>', description: 'only this server' },
    'group-by': { type: 'string', value: '<g>', description: 'none | day | tool | subject (default none)' },
  },
  async run(ctx) {
    const q = {
      from: str(ctx.flags, 'from'),
      to: str(ctx.flags, 'to'),
      tool: str(ctx.flags, 'tool'),
      server: str(ctx.flags, 'server'),
      groupBy: str(ctx.flags, 'group-by'),
    };
    const result = await ctx.client().call('getUsage', { query: q });
    ctx.print(result, (r) =>
      table(
        ['DAY', 'SERVER', 'TOOL', 'SUBJECT', 'CALLS', 'ERRORS', 'AVG MS'],
        r.usage.map((u) => [u.day, u.server, u.tool, u.subject, u.calls, u.errors, u.avgMs]),
      ),
    );
  },
};

const callLine = (c: CallRow) => [c.at, c.tool ?? c.method, c.server, c.outcome, c.durationMs, c.subject];
const CALL_HEADERS = ['AT', 'TOOL', 'SERVER', 'OUTCOME', 'MS', 'SUBJECT'];

function positiveInt(ctx: CommandContext, flag: string, fallback: number, max: number): number {
  const raw = str(ctx.flags, flag);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > max) throw usageError(`--${flag}: "${raw}" is not an integer from 1 to ${max}`, flag);
  return n;
}

/** Prints new calls oldest first (one JSON object per line with --output json) until the process is stopped. */
async function follow(ctx: CommandContext, limit: number, intervalMs: number, seen: Set<string>): Promise<void> {
  for (;;) {
    await delay(intervalMs);
    const { calls } = await ctx.client().call('listCalls', { query: { limit } });
    const fresh = calls.filter((c) => !seen.has(c.id)).reverse();
    for (const c of fresh) {
      seen.add(c.id);
      ctx.io.stdout(
        ctx.json
          ? JSON.stringify(c)
          : callLine(c)
              .map((v) => v ?? '-')
              .join('  '),
      );
    }
    // Bounded memory on a long tail: only ids that can still appear in one page matter.
    if (seen.size > limit * 4) for (const id of [...seen].slice(0, seen.size - limit * 2)) seen.delete(id);
  }
}

const callsTail: Command = {
  name: 'calls tail',
  summary: 'The latest calls of the call log; --follow keeps printing new ones',
  positionals: { min: 0, max: 0 },
  options: {
    limit: { type: 'string', value: '<n>', description: 'how many recent calls (1-200, default 20)' },
    follow: { type: 'boolean', short: 'f', description: 'keep polling for new calls' },
    'interval-ms': { type: 'string', value: '<ms>', description: 'poll interval with --follow (default 2000)' },
    outcome: { type: 'string', value: '<o>', description: 'ok | error | tool_error | rate_limited' },
  },
  async run(ctx) {
    const limit = positiveInt(ctx, 'limit', 20, 200);
    const { calls } = await ctx.client().call('listCalls', { query: { limit, outcome: str(ctx.flags, 'outcome') } });
    const oldestFirst = [...calls].reverse();
    if (!ctx.flags.follow) return ctx.print(oldestFirst, (rows) => table(CALL_HEADERS, rows.map(callLine)));
    for (const c of oldestFirst)
      ctx.io.stdout(
        ctx.json
          ? JSON.stringify(c)
          : callLine(c)
              .map((v) => v ?? '-')
              .join('  '),
      );
    await follow(ctx, limit, positiveInt(ctx, 'interval-ms', 2_000, 3_600_000), new Set(calls.map((c) => c.id)));
  },
};

const limits: Command = {
  name: 'limits',
  summary: "The tenant's rate plan and call-log policy (change them with a tenant file and apply)",
  positionals: { min: 0, max: 0 },
  async run(ctx) {
    const view = await ctx.client().call('getLimits');
    ctx.print(view, (v) => fields({ rate: v.rate ?? 'operator defaults', callLog: v.callLog ?? 'defaults' }));
  },
};

const whoami: Command = {
  name: 'whoami',
  summary: 'The tenant and role of the credential in use',
  positionals: { min: 0, max: 0 },
  async run(ctx) {
    const session = await ctx.client().call('getSession');
    ctx.print(session, (s) => fields({ tenant: s.tenant, via: s.via, role: s.role, user: s.user?.username }));
  },
};

export const OBSERVE_COMMANDS: Command[] = [usage, callsTail, limits, whoami];
