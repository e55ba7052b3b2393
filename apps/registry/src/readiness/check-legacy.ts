import { CHECK_TITLES } from './check-titles';
import { result, type CheckResult } from './check-result';
import { unreachable } from './check-modern';
import { CLAUDE, LEGACY_VERSION, MODERN_VERSION } from './client-profiles';
import { describeAnswer, initializeLegacy, type LegacySession } from './mcp-requests';
import type { Probe } from './probe';

/** (b) `initialize` at 2025-11-25, as Claude clients still on the legacy era send it; returns the session. */
export async function checkLegacyInitialize(
  probe: Probe,
  auth: Record<string, string>,
): Promise<{ check: CheckResult; session?: LegacySession }> {
  const id = 'legacy-initialize';
  const title = CHECK_TITLES[id];
  try {
    const { session, answer } = await initializeLegacy(probe, { ...CLAUDE.headers, ...auth }, CLAUDE.clientInfo);
    if (!session) {
      return {
        check: result(
          id,
          title,
          'fail',
          `initialize (protocolVersion ${LEGACY_VERSION}) got ${describeAnswer(answer)}`,
          'Answer initialize with a protocolVersion (2025-11-25 or an older one you support); Claude Code and older clients open with it.',
        ),
      };
    }
    const note = session.protocolVersion === LEGACY_VERSION ? '' : ` (the server negotiated ${session.protocolVersion})`;
    return { check: result(id, title, 'pass', `initialize answered${note}`), session };
  } catch (err) {
    return { check: unreachable(id, title, err) };
  }
}

async function followUp(probe: Probe, session: LegacySession, header: string): Promise<{ ok: boolean; reason: string }> {
  const answer = await probe.rpc('tools/list', undefined, { ...session.headers, 'mcp-protocol-version': header });
  if (answer.status === 200 && answer.message?.result)
    return { ok: true, reason: `tools/list with MCP-Protocol-Version ${header} was answered` };
  return {
    ok: false,
    reason: `tools/list with MCP-Protocol-Version ${header} after negotiating ${session.protocolVersion} got ${describeAnswer(answer)}`,
  };
}

/** (b) A follow-up request carrying `MCP-Protocol-Version: 2025-11-25` must not get 400. */
export async function checkLegacyVersionHeader(probe: Probe, session: LegacySession | undefined): Promise<CheckResult> {
  const id = 'legacy-version-header';
  const title = CHECK_TITLES[id];
  if (!session) return result(id, title, 'skip', 'initialize failed, so there is no session to follow up on');
  try {
    const r = await followUp(probe, session, LEGACY_VERSION);
    return r.ok
      ? result(id, title, 'pass', r.reason)
      : result(
          id,
          title,
          'fail',
          `${r.reason}; the client loses every tool after connecting`,
          `Accept MCP-Protocol-Version ${LEGACY_VERSION} on requests after initialize (and tolerate a missing header).`,
        );
  } catch (err) {
    return unreachable(id, title, err);
  }
}

/**
 * (b) Claude Code sends its own newest version in the header after negotiating an older one;
 * SDK 1.x servers reject `2026-07-28` with "Unsupported protocol version".
 */
export async function checkNewerVersionHeader(probe: Probe, session: LegacySession | undefined): Promise<CheckResult> {
  const id = 'newer-version-header';
  const title = CHECK_TITLES[id];
  if (!session) return result(id, title, 'skip', 'initialize failed, so there is no session to follow up on');
  try {
    const r = await followUp(probe, session, MODERN_VERSION);
    return r.ok
      ? result(id, title, 'pass', r.reason)
      : result(
          id,
          title,
          'fail',
          `${r.reason}; Claude Code sends its newest version in this header and then shows no tools`,
          `Treat an MCP-Protocol-Version header you do not support, or one newer than the negotiated version, as the negotiated version instead of answering 400 (anthropics/claude-code#92835).`,
        );
  } catch (err) {
    return unreachable(id, title, err);
  }
}
