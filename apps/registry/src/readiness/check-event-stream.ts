import { CHECK_TITLES } from './check-titles';
import { result, type CheckResult } from './check-result';
import { unreachable } from './check-modern';
import { CLAUDE, LEGACY_VERSION } from './client-profiles';
import type { LegacySession } from './mcp-requests';
import type { Probe } from './probe';

/**
 * (c) GET with `Accept: text/event-stream`, as Claude opens after connecting (and ChatGPT
 * probes when a connector is created): must be 200 `text/event-stream`. Only the headers
 * and first bytes are read; the stream is aborted.
 */
export async function checkEventStream(
  probe: Probe,
  auth: Record<string, string>,
  session: LegacySession | undefined,
): Promise<CheckResult> {
  const id = 'event-stream';
  const title = CHECK_TITLES[id];
  const fix =
    'Answer GET on the MCP URL with 200 and Content-Type text/event-stream (a heartbeat stream is enough) when the request accepts text/event-stream; publish through the Switchboard gateway, which does this.';
  try {
    const headers = {
      ...CLAUDE.headers,
      ...auth,
      ...(session?.headers ?? {}),
      accept: 'text/event-stream',
      'mcp-protocol-version': session?.protocolVersion ?? LEGACY_VERSION,
    };
    const res = await probe.openStream(headers);
    const type = res.headers.get('content-type') ?? '(none)';
    if (res.status === 200 && type.startsWith('text/event-stream')) return result(id, title, 'pass', `GET answered 200 ${type}`);
    if (res.status === 405 || res.status === 404) {
      return result(
        id,
        title,
        'fail',
        `GET with Accept: text/event-stream answered ${res.status}; Claude treats the server as dead (and ChatGPT connector setup fails on 404)`,
        fix,
      );
    }
    if (res.status === 200) {
      return result(
        id,
        title,
        'fail',
        `GET with Accept: text/event-stream answered 200 with Content-Type ${type} instead of an event stream ("${res.firstBytes.slice(0, 80)}"); Claude Code treats this as fatal`,
        fix,
      );
    }
    return result(id, title, 'fail', `GET with Accept: text/event-stream answered ${res.status} (${type})`, fix);
  } catch (err) {
    return unreachable(id, title, err);
  }
}
