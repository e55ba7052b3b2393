/**
 * The reserved `_meta` keys of the modern era (2026-07-28, SEP-2575). Requests carry the
 * first four in `params._meta`; results carry `serverInfo` in `result._meta`.
 */
export const META_KEYS = {
  /** Required on every modern request: the protocol revision governing it. */
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  /** Required on every modern request: the client's capabilities (an object). */
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  /** SHOULD on every modern request: the client `Implementation`. */
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  /** Optional opt-in to `notifications/message` for this request. */
  logLevel: 'io.modelcontextprotocol/logLevel',
  /** SHOULD on every modern result: the server `Implementation`. */
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  /** Tags notifications on a `subscriptions/listen` stream. */
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;
