import type { InvokeContext } from '@switchboard/mcp-http';
import { LOG_LEVELS, type LogLevel } from '@switchboard/protocol';

/** Relays one upstream notification (logging message, resource update) to a call's client. */
export type Notify = (method: string, params: Record<string, unknown>) => void;

/**
 * Most upstream logging messages and resource updates relayed to one call's client: the upstream
 * decides how many it sends, and each is written to the caller's stream (and its resumption store).
 */
export const MAX_RELAYED_NOTIFICATIONS = 1_000;

/**
 * The relay of one call: an upstream `notifications/message` goes through the call's own log
 * filter (`ctx.log`: a 2026-07-28 caller's requested level), a `notifications/resources/updated`
 * to its stream; malformed ones, other methods and those past {@link MAX_RELAYED_NOTIFICATIONS} are dropped.
 */
export function relayNotifications(ctx: InvokeContext): Notify {
  let relayed = 0;
  return (method, params) => {
    if (relayed >= MAX_RELAYED_NOTIFICATIONS) return;
    if (method === 'notifications/message') {
      if (typeof params.level !== 'string' || !(LOG_LEVELS as readonly string[]).includes(params.level)) return;
      relayed++;
      ctx.log(params.level as LogLevel, params.data, typeof params.logger === 'string' ? params.logger : undefined);
    } else if (method === 'notifications/resources/updated') {
      if (typeof params.uri !== 'string') return;
      relayed++;
      ctx.resourceUpdated?.(params.uri);
    }
  };
}
