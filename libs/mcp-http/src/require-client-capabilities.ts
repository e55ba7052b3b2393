import { ErrorCode, isJsonObject, McpError } from '@switchboard/protocol';
import { declaresTasks } from './task-wire';

/**
 * Capabilities whose server→client requests the gateway relays to the caller's client. The
 * `tasks` capability (an upstream sending `sampling/createMessage` or `elicitation/create` as a
 * task the client runs and is polled for) is not relayed: a tool needing it is refused even to a
 * client that declares it, since its upstream session never declares it.
 */
const RELAYED = new Set(['sampling', 'elicitation', 'elicitation.url', 'roots']);

function declares(capabilities: Record<string, unknown>, capability: string): boolean {
  switch (capability) {
    case 'elicitation.url':
      return isJsonObject(capabilities.elicitation) && Object.hasOwn(capabilities.elicitation, 'url');
    case 'tasks':
      // 2025-11-25 declares a `tasks` object; 2026-07-28 the tasks extension.
      return isJsonObject(capabilities.tasks) || declaresTasks(capabilities);
    default:
      return Object.hasOwn(capabilities, capability);
  }
}

/**
 * Refuses a tool its upstream registers only for clients with capabilities this client did not
 * declare (legacy: its `initialize` capabilities, carried by the sealed session id; 2026-07-28:
 * the request's `_meta`). The tool stays listed — lists are compiled once per catalog and
 * shared by every client of a surface — and the call answers −32021 naming what is missing, so
 * the client can say why instead of the upstream's "Unknown tool".
 */
export function requireClientCapabilities(
  tool: string,
  required: readonly string[] | undefined,
  capabilities: Record<string, unknown> | undefined,
  era: 'modern' | 'legacy',
): void {
  if (required === undefined || required.length === 0) return;
  const missing = required.filter((c) => !declares(capabilities ?? {}, c));
  const status = era === 'modern' ? 400 : 200;
  if (missing.length > 0) {
    throw new McpError(
      ErrorCode.MissingRequiredClientCapability,
      `Tool ${tool} needs the client capabilit${missing.length === 1 ? 'y' : 'ies'} ${missing.join(', ')}, which this client did not declare${era === 'legacy' ? ' in initialize' : ''}`,
      { requiredCapabilities: [...required], missing },
      status,
    );
  }
  const unrelayed = required.filter((c) => !RELAYED.has(c));
  if (unrelayed.length > 0) {
    throw new McpError(
      ErrorCode.MissingRequiredClientCapability,
      `Tool ${tool} needs the client capability ${unrelayed.join(', ')} on the upstream session, which this gateway does not relay (task-augmented requests to the client)`,
      { requiredCapabilities: [...required], notRelayed: unrelayed },
      status,
    );
  }
}
