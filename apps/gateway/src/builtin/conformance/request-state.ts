import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ToolContext } from '@switchboard/catalog';
import { ErrorCode, McpError } from '@switchboard/protocol';

/**
 * MRTR `requestState` comes back from the client, so it is integrity-protected. The transport
 * supplies `ctx.state`, sealed with the key all replicas share (a retry may land on any of
 * them); without it (unit tests) a per-process HMAC key stands in.
 */
const FALLBACK_KEY = randomBytes(32);

function tag(body: string): string {
  return createHmac('sha256', FALLBACK_KEY).update(body).digest('base64url');
}

/** Seals `data` into an opaque requestState string. */
export function sealState(ctx: ToolContext, data: Record<string, unknown>): string {
  if (ctx.state) return ctx.state.seal(data);
  const body = Buffer.from(JSON.stringify(data)).toString('base64url');
  return `${body}.${tag(body)}`;
}

/**
 * Opens a requestState sealed by {@link sealState}.
 * @throws McpError −32602 when the state was altered or is not ours.
 */
export function openState(ctx: ToolContext, state: string): Record<string, unknown> {
  const opened = ctx.state ? ctx.state.open(state) : openLocally(state);
  if (opened === undefined) {
    throw new McpError(ErrorCode.InvalidParams, 'params.requestState failed its integrity check (altered or not issued by this server)');
  }
  return opened;
}

function openLocally(state: string): Record<string, unknown> | undefined {
  const dot = state.indexOf('.');
  const body = dot === -1 ? '' : state.slice(0, dot);
  const given = Buffer.from(dot === -1 ? '' : state.slice(dot + 1));
  const expected = Buffer.from(tag(body));
  if (body === '' || given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  const data: unknown = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  return typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
}
