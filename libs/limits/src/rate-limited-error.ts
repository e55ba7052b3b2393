import { ErrorCode, McpError } from '@switchboard/protocol';
import type { LimitDecision } from './limit-rule';

/** What the transport sends for a refused request: the JSON-RPC error (with its HTTP status) and the headers. */
export interface RateLimitedAnswer {
  error: McpError;
  headers: Record<string, string>;
}

const DESCRIPTION: Record<string, string> = {
  tenant: "the tenant's request budget",
  subject: 'the per-caller limit for this tool',
  tool: 'the per-caller limit set for this tool',
  daily: "the tenant's daily quota of tool calls",
};

/**
 * The answer over a limit (README "Rate limits"): JSON-RPC −32029 whose message says which
 * limit and when to retry (models read the message), `data.retryAfterSeconds`, `data.limit`,
 * `data.resetAt` for the daily quota, and a `Retry-After` header. HTTP 200 in the legacy era
 * (the SDK 1.x client turns any non-2xx into a transport error that drops the body and
 * `Retry-After`), HTTP 429 in the stateless 2026-07-28 era whose errors carry HTTP statuses.
 */
export function rateLimitedAnswer(
  decision: Extract<LimitDecision, { allowed: false }>,
  era: 'legacy' | 'modern',
  nowMs = Date.now(),
): RateLimitedAnswer {
  const seconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
  const rule = decision.rule;
  const what = DESCRIPTION[rule.id] ?? rule.id;
  const data: Record<string, unknown> = { retryAfterSeconds: seconds, limit: rule.id };
  let message = `Rate limit exceeded: ${what}; retry after ${seconds} s`;
  if (rule.kind === 'quota') {
    const resetAt = new Date(rule.resetAtMs).toISOString();
    data.resetAt = resetAt;
    data.quota = rule.limit;
    message = `Quota exhausted: ${what} (${rule.limit}); it resets at ${resetAt} (retry after ${seconds} s)`;
  } else {
    data.resetAt = new Date(nowMs + decision.retryAfterMs).toISOString();
  }
  return {
    error: new McpError(ErrorCode.RateLimited, message, data, era === 'modern' ? 429 : 200),
    headers: { 'retry-after': String(seconds) },
  };
}
