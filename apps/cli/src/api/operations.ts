import type { Operations } from '@switchboard/admin-api';

/** The admin API operations the CLI calls. */
export type OperationId =
  | 'getSession'
  | 'getTenant'
  | 'updateTenant'
  | 'getTenantAuth'
  | 'updateTenantAuth'
  | 'getLimits'
  | 'putLimits'
  | 'getGuardrails'
  | 'putGuardrails'
  | 'listServers'
  | 'createServer'
  | 'importServer'
  | 'getServer'
  | 'updateServer'
  | 'deleteServer'
  | 'discoverServer'
  | 'listServerItems'
  | 'listPublications'
  | 'publish'
  | 'unpublish'
  | 'listChanges'
  | 'approveChange'
  | 'getPreview'
  | 'getUsage'
  | 'listCalls';

/**
 * Method and path of each operation, checked by the compiler against `Operations`, which
 * `npm run gen:api` generates from the registry's OpenAPI document: a renamed or removed route
 * fails the build here instead of at a user's terminal.
 */
export const OPERATIONS: { [K in OperationId]: { method: Operations[K]['method']; path: Operations[K]['path'] } } = {
  getSession: { method: 'GET', path: '/v1/session' },
  getTenant: { method: 'GET', path: '/v1/tenant' },
  updateTenant: { method: 'PATCH', path: '/v1/tenant' },
  getTenantAuth: { method: 'GET', path: '/v1/tenant/auth' },
  updateTenantAuth: { method: 'PATCH', path: '/v1/tenant/auth' },
  getLimits: { method: 'GET', path: '/v1/limits' },
  putLimits: { method: 'PUT', path: '/v1/limits' },
  getGuardrails: { method: 'GET', path: '/v1/guardrails' },
  putGuardrails: { method: 'PUT', path: '/v1/guardrails' },
  listServers: { method: 'GET', path: '/v1/servers' },
  createServer: { method: 'POST', path: '/v1/servers' },
  importServer: { method: 'POST', path: '/v1/servers/import' },
  getServer: { method: 'GET', path: '/v1/servers/{id}' },
  updateServer: { method: 'PATCH', path: '/v1/servers/{id}' },
  deleteServer: { method: 'DELETE', path: '/v1/servers/{id}' },
  discoverServer: { method: 'POST', path: '/v1/servers/{id}/discover' },
  listServerItems: { method: 'GET', path: '/v1/servers/{id}/items' },
  listPublications: { method: 'GET', path: '/v1/publications' },
  publish: { method: 'POST', path: '/v1/publications' },
  unpublish: { method: 'POST', path: '/v1/publications/unpublish' },
  listChanges: { method: 'GET', path: '/v1/changes' },
  approveChange: { method: 'POST', path: '/v1/changes/approve' },
  getPreview: { method: 'GET', path: '/v1/preview' },
  getUsage: { method: 'GET', path: '/v1/usage' },
  listCalls: { method: 'GET', path: '/v1/calls' },
};

/** The request body type of an operation (`never` when it takes none). */
export type BodyOf<K extends OperationId> = Operations[K]['body'];
/** The success answer's type (`unknown` where the document leaves it open). */
export type ResponseOf<K extends OperationId> = Operations[K]['response'];
