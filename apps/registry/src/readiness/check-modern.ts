import { CHECK_TITLES } from './check-titles';
import { result, type CheckResult } from './check-result';
import { CLAUDE, LEGACY_VERSION, MODERN_VERSION } from './client-profiles';
import { describeAnswer, errorCode, modernHeaders, modernParams } from './mcp-requests';
import { ProbeError, type Probe } from './probe';

const UPGRADE_FIX =
  'Serve the 2026-07-28 revision (SEP-2575): answer server/discover and accept per-request _meta; with the TypeScript SDK that means v2. Publishing the server through the Switchboard gateway does this for you.';

/** (a) `server/discover` at 2026-07-28 with Claude's headers; returns the versions the server advertised. */
export async function checkModernDiscover(
  probe: Probe,
  auth: Record<string, string>,
): Promise<{ check: CheckResult; supportedVersions?: string[] }> {
  const id = 'modern-discover';
  const title = CHECK_TITLES[id];
  try {
    const answer = await probe.rpc('server/discover', modernParams(CLAUDE.clientInfo), {
      ...CLAUDE.headers,
      ...auth,
      ...modernHeaders('server/discover'),
    });
    const versions = answer.message?.result?.supportedVersions;
    if (answer.status === 200 && Array.isArray(versions)) {
      const list = versions.filter((v): v is string => typeof v === 'string');
      if (list.includes(MODERN_VERSION))
        return {
          check: result(id, title, 'pass', `server/discover answered; supported versions: ${list.join(', ')}`),
          supportedVersions: list,
        };
      return {
        check: result(
          id,
          title,
          'warn',
          `server/discover answered but does not list ${MODERN_VERSION} (lists ${list.join(', ') || 'nothing'}); Claude falls back to initialize`,
          UPGRADE_FIX,
        ),
        supportedVersions: list,
      };
    }
    const code = errorCode(answer);
    const why = code === -32601 ? 'the server does not know server/discover (a 1.x-era server)' : 'server/discover was refused';
    return {
      check: result(
        id,
        title,
        'fail',
        `${why}: ${describeAnswer(answer)}. Claude connectors open with server/discover and show "Couldn't connect".`,
        UPGRADE_FIX,
      ),
    };
  } catch (err) {
    return { check: unreachable(id, title, err) };
  }
}

/** (a) The Claude quirk: `MCP-Protocol-Version: 2025-11-25` header beside `_meta` 2026-07-28 must not get −32020. */
export async function checkVersionHeaderQuirk(probe: Probe, auth: Record<string, string>): Promise<CheckResult> {
  const id = 'version-header-quirk';
  const title = CHECK_TITLES[id];
  try {
    const answer = await probe.rpc('tools/list', modernParams(CLAUDE.clientInfo), {
      ...CLAUDE.headers,
      ...auth,
      ...modernHeaders('tools/list', LEGACY_VERSION),
    });
    if (answer.status === 200 && answer.message?.result)
      return result(id, title, 'pass', 'tools/list with header 2025-11-25 and _meta 2026-07-28 was answered');
    const code = errorCode(answer);
    return result(
      id,
      title,
      'fail',
      `tools/list with MCP-Protocol-Version 2025-11-25 and _meta protocolVersion 2026-07-28 got ${describeAnswer(answer)}${code === -32020 ? ' — −32020 is the strict header check Claude trips over; every request from Claude fails' : ''}`,
      'Treat a legacy MCP-Protocol-Version header beside a modern _meta protocolVersion as the _meta version (do not answer −32020/400); Claude Code and Desktop send this combination (anthropics/claude-code#93290).',
    );
  } catch (err) {
    return unreachable(id, title, err);
  }
}

/** A check that could not reach the endpoint at all. */
export function unreachable(id: string, title: string, err: unknown): CheckResult {
  const message = err instanceof ProbeError ? err.message : ((err as Error)?.message ?? String(err));
  return result(
    id,
    title,
    'fail',
    message,
    'Make sure the connector URL is reachable from the internet (no WAF or bot challenge on it) and answers within the timeout.',
  );
}
