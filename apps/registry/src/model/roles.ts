/** Roles of console admins and API keys, weakest first. */
export const ROLES = ['viewer', 'publisher', 'admin', 'owner'] as const;
export type Role = (typeof ROLES)[number];

/**
 * The role each tenant route needs (`METHOD route-pattern`): viewer reads; publisher reviews,
 * previews and publishes; admin changes servers, settings, auth and limits; owner manages
 * admins and keys. A tenant route missing here needs `viewer` for GET and `owner` otherwise
 * (fail closed); the e2e role test checks every registered route is listed.
 */
export const ROUTE_ROLES: Readonly<Record<string, Role>> = {
  'GET /v1/session': 'viewer',
  'GET /v1/tenant': 'viewer',
  'PATCH /v1/tenant': 'admin',
  'GET /v1/connect': 'viewer',
  'GET /v1/audit': 'viewer',
  'GET /v1/keys': 'owner',
  'POST /v1/keys': 'owner',
  'PATCH /v1/keys/:id': 'owner',
  'DELETE /v1/keys/:id': 'owner',
  'GET /v1/admins': 'viewer',
  'POST /v1/admins': 'owner',
  'PATCH /v1/admins/:username': 'owner',
  'DELETE /v1/admins/:username': 'owner',
  'GET /v1/servers': 'viewer',
  'GET /v1/servers/:id': 'viewer',
  'GET /v1/servers/:id/items': 'viewer',
  'POST /v1/servers': 'admin',
  'POST /v1/servers/check': 'admin',
  'PATCH /v1/servers/:id': 'admin',
  'DELETE /v1/servers/:id': 'admin',
  'POST /v1/servers/:id/discover': 'admin',
  'PUT /v1/servers/:id/connector': 'admin',
  'DELETE /v1/servers/:id/connector': 'admin',
  'POST /v1/servers/:id/connector/link': 'admin',
  'GET /v1/servers/:id/connector/account': 'viewer',
  'DELETE /v1/servers/:id/connector/account': 'admin',
  'GET /v1/tenant/auth': 'viewer',
  'PATCH /v1/tenant/auth': 'admin',
  'POST /v1/tenant/auth/test-sign-in': 'admin',
  'POST /v1/tenant/auth/test-sign-in/result': 'admin',
  'POST /v1/tenant/auth/enterprise-check': 'admin',
  'GET /v1/publications': 'viewer',
  'POST /v1/publications': 'publisher',
  'POST /v1/publications/unpublish': 'publisher',
  'POST /v1/publish': 'publisher',
  'GET /v1/changes': 'viewer',
  'POST /v1/changes/approve': 'publisher',
  'GET /v1/preview': 'viewer',
  'POST /v1/preview': 'publisher',
  'GET /v1/snapshots': 'viewer',
  'POST /v1/tenants/:tenant/readiness': 'viewer',
  'GET /v1/limits': 'viewer',
  'PUT /v1/limits': 'admin',
  'GET /v1/discovery': 'viewer',
  'PUT /v1/discovery': 'admin',
  'DELETE /v1/discovery': 'admin',
  'GET /v1/explain': 'viewer',
  'GET /v1/guardrails/tool-scan': 'viewer',
  'PUT /v1/guardrails/tool-scan': 'admin',
  'GET /v1/guardrails': 'viewer',
  'PUT /v1/guardrails': 'admin',
  'POST /v1/guardrails/check': 'admin',
  'GET /v1/usage': 'viewer',
  'GET /v1/calls': 'viewer',
  'GET /v1/users': 'viewer',
  'POST /v1/users': 'admin',
  'POST /v1/users/:username/reset-link': 'admin',
  'POST /v1/users/:username/disable': 'admin',
  'POST /v1/users/:username/enable': 'admin',
  'DELETE /v1/users/:username/passkeys/:id': 'admin',
  'GET /v1/console-sso': 'admin',
  'PUT /v1/console-sso': 'owner',
  'DELETE /v1/console-sso': 'owner',
  'GET /v1/scim/tokens': 'owner',
  'POST /v1/scim/tokens': 'owner',
  'DELETE /v1/scim/tokens/:id': 'owner',
  // Where the audit log goes, or whether it goes at all, is the owner's decision, like API keys.
  'GET /v1/audit-export': 'viewer',
  'PUT /v1/audit-export': 'owner',
  'DELETE /v1/audit-export': 'owner',
  'POST /v1/audit-export/run': 'admin',
  'POST /v1/servers/import': 'admin',
  'GET /v1/webhooks': 'viewer',
  'GET /v1/webhooks/:id': 'viewer',
  'GET /v1/webhooks/:id/deliveries': 'viewer',
  'POST /v1/webhooks': 'admin',
  'PATCH /v1/webhooks/:id': 'admin',
  'DELETE /v1/webhooks/:id': 'admin',
  'POST /v1/webhooks/:id/rotate': 'admin',
  'POST /v1/webhooks/:id/test': 'admin',
};

/** The role a request needs, by its method and matched route pattern. */
export function requiredRole(method: string, route: string): Role {
  return ROUTE_ROLES[`${method.toUpperCase()} ${route}`] ?? (method.toUpperCase() === 'GET' ? 'viewer' : 'owner');
}

/** Whether `role` includes `needed`. */
export function hasRole(role: Role, needed: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(needed);
}
