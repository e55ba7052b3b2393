import { guardedFetch, type GuardedFetch, type NetGuardPolicy } from '@switchboard/net-guard';
import { checkEventStream } from './check-event-stream';
import { checkLegacyInitialize, checkLegacyVersionHeader, checkNewerVersionHeader } from './check-legacy';
import { checkModernDiscover, checkVersionHeaderQuirk } from './check-modern';
import { checkOAuth } from './check-oauth';
import { result, type CheckResult, type CheckStatus, type ReadinessReport } from './check-result';
import { CHECK_TITLES, MCP_CHECK_IDS, type CheckId } from './check-titles';
import {
  checkChatGptTools,
  checkClaudeTools,
  checkNoOpenAiMeta,
  checkNoSecuritySchemes,
  checkToolHints,
  checkToolNames,
  checkToolTitles,
} from './check-tools';
import { CHATGPT, CLAUDE } from './client-profiles';
import { listTools } from './list-tools';
import { Probe } from './probe';

export interface ReadinessOptions {
  /** The connector URL (the tenant's MCP URL), already SSRF-checked by the caller. */
  url: string;
  policy: NetGuardPolicy;
  /** Per-request timeout, ms. */
  timeoutMs?: number;
  /** An access token for a protected endpoint, so the MCP checks can run past the 401. */
  accessToken?: string;
  /** Injected fetch (default: the SSRF-guarded fetch for `policy`). */
  fetch?: GuardedFetch;
}

const TOOL_CHECKS: CheckId[] = [
  'claude-tools',
  'claude-no-security-schemes',
  'claude-no-openai-meta',
  'tool-titles',
  'tool-hints',
  'tool-names',
  'chatgpt-tools',
];

/**
 * Replays against a live connector URL what Claude and ChatGPT do when connecting and
 * reports each step. Checks run in sequence (each is a few requests to one endpoint).
 */
export async function runReadiness(options: ReadinessOptions): Promise<ReadinessReport> {
  const ranAt = new Date().toISOString();
  const probe = new Probe(options.url, options.fetch ?? guardedFetch(options.policy), options.timeoutMs ?? 5_000);
  const checks: CheckResult[] = [];

  const oauth = await checkOAuth(probe);
  const auth: Record<string, string> = options.accessToken ? { authorization: `Bearer ${options.accessToken}` } : {};
  if (oauth.protectedEndpoint && !options.accessToken) {
    for (const id of MCP_CHECK_IDS) {
      checks.push(
        result(
          id,
          CHECK_TITLES[id],
          'skip',
          'the endpoint requires OAuth; run the check with an access token (accessToken) to replay what clients do after sign-in',
        ),
      );
    }
  } else {
    checks.push(...(await mcpChecks(probe, auth)));
  }
  checks.push(...oauth.checks);

  const summary: Record<CheckStatus, number> = { pass: 0, fail: 0, warn: 0, skip: 0 };
  for (const c of checks) summary[c.status]++;
  return { url: options.url, ranAt, summary, checks };
}

async function mcpChecks(probe: Probe, auth: Record<string, string>): Promise<CheckResult[]> {
  const checks: CheckResult[] = [];
  const modern = await checkModernDiscover(probe, auth);
  checks.push(modern.check);
  checks.push(await checkVersionHeaderQuirk(probe, auth));
  const legacy = await checkLegacyInitialize(probe, auth);
  checks.push(legacy.check);
  checks.push(await checkLegacyVersionHeader(probe, legacy.session));
  checks.push(await checkNewerVersionHeader(probe, legacy.session));
  checks.push(await checkEventStream(probe, auth, legacy.session));

  const useModern = modern.check.status !== 'fail';
  if (!useModern && !legacy.session) {
    for (const id of TOOL_CHECKS)
      checks.push(
        result(id, CHECK_TITLES[id], 'skip', 'neither server/discover nor initialize succeeded, so tools/list cannot be replayed'),
      );
    return checks;
  }
  const claude = await listTools(probe, CLAUDE, auth, useModern).catch((err: Error) => ({ problem: err.message }));
  if ('problem' in claude) {
    checks.push(
      result(
        'claude-tools',
        CHECK_TITLES['claude-tools'],
        'fail',
        `tools/list as Claude failed: ${claude.problem}`,
        'Make tools/list answer for Claude clients (User-Agent Claude-User, Origin https://claude.ai).',
      ),
    );
    for (const id of TOOL_CHECKS.slice(1)) checks.push(result(id, CHECK_TITLES[id], 'skip', 'tools/list as Claude failed'));
    return checks;
  }
  checks.push(
    checkClaudeTools(claude.tools),
    checkNoSecuritySchemes(claude.tools),
    checkNoOpenAiMeta(claude.tools),
    checkToolTitles(claude.tools),
    checkToolHints(claude.tools),
    checkToolNames(claude.tools),
  );
  const chatgpt = await listTools(probe, CHATGPT, auth, useModern).catch((err: Error) => ({ problem: err.message }));
  checks.push(
    'problem' in chatgpt
      ? result(
          'chatgpt-tools',
          CHECK_TITLES['chatgpt-tools'],
          'fail',
          `tools/list as ChatGPT failed: ${chatgpt.problem}`,
          'Make tools/list answer for ChatGPT (Origin https://chatgpt.com).',
        )
      : checkChatGptTools(claude.tools, chatgpt.tools),
  );
  return checks;
}
