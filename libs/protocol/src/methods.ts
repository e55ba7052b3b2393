import type { Era } from './versions';

/**
 * Client→server methods of 2024-11-05 … 2025-11-25 (the SDK v2 2025-era registry).
 * `completion/complete` exists from 2025-03-26 and `tasks/*` from 2025-11-25 only; the
 * version split is left to the handlers, era membership is what the transport needs.
 */
const LEGACY_METHODS: ReadonlySet<string> = new Set([
  'initialize',
  'ping',
  'completion/complete',
  'logging/setLevel',
  'prompts/get',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
  'tools/call',
  'tools/list',
  'tasks/get',
  'tasks/result',
  'tasks/list',
  'tasks/cancel',
  'notifications/initialized',
  'notifications/cancelled',
  'notifications/progress',
  'notifications/roots/list_changed',
  'notifications/tasks/status',
]);

/**
 * Client→server methods of 2026-07-28 (SDK v2 `rev2026-07-28/registry`; conformance
 * `server-stateless` asserts 404 + −32601 for `initialize`, `ping`, `logging/setLevel`,
 * `resources/subscribe`, `resources/unsubscribe`). `tasks/*` moved to the tasks extension,
 * `notifications/initialized` and `notifications/roots/list_changed` went with the handshake
 * and server→client requests.
 */
const MODERN_METHODS: ReadonlySet<string> = new Set([
  'server/discover',
  'subscriptions/listen',
  'completion/complete',
  'prompts/get',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'tools/call',
  'tools/list',
  'notifications/cancelled',
  'notifications/progress',
]);

/**
 * Whether `method` exists in `era`. Modern removes `initialize`, `ping`,
 * `logging/setLevel`, `resources/subscribe`, `resources/unsubscribe` (answered with HTTP 404 + −32601);
 * legacy has no `server/discover`.
 */
export function isMethodOfEra(method: string, era: Era): boolean {
  return era === 'modern' ? MODERN_METHODS.has(method) : LEGACY_METHODS.has(method);
}
