/** `GET /v1/tenant/auth` (never a secret: `clientSecretSet` instead), generated from the registry's OpenAPI document. */
export type { TenantAuthView } from './api-types';
