import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { ErrorCode, McpError } from '@switchboard/protocol';

/**
 * MRTR `requestState` comes back from the client, so it is integrity-protected: base64url JSON
 * plus an HMAC-SHA256 tag. The key is per process, which is enough for a test fixture (a state
 * minted by one replica fails on another); a production handler would use a shared secret.
 */
const KEY = randomBytes(32);

function tag(body: string): string {
  return createHmac('sha256', KEY).update(body).digest('base64url');
}

/** Seals `data` into an opaque requestState string. */
export function sealState(data: Record<string, unknown>): string {
  const body = Buffer.from(JSON.stringify(data)).toString('base64url');
  return `${body}.${tag(body)}`;
}

/**
 * Opens a requestState sealed by {@link sealState}.
 * @throws McpError −32602 when the state was altered or is not ours.
 */
export function openState(state: string): Record<string, unknown> {
  const dot = state.indexOf('.');
  const body = dot === -1 ? '' : state.slice(0, dot);
  const given = Buffer.from(dot === -1 ? '' : state.slice(dot + 1));
  const expected = Buffer.from(tag(body));
  if (body === '' || given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new McpError(ErrorCode.InvalidParams, 'params.requestState failed its integrity check (altered or not issued by this server)');
  }
  const data: unknown = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  return typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
}
