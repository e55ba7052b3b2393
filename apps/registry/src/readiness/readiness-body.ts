import { z } from 'zod';
import { headerValue } from '../http/schemas';

/** `POST /v1/tenants/:tenant/readiness` body (optional as a whole). */
export const readinessBody = z
  .object({
    /** Check this URL instead of the tenant's MCP URL (SSRF-checked). */
    url: z.url().max(2048).optional(),
    /** An access token for a protected endpoint, so the MCP checks can run past the 401 (never stored). */
    accessToken: headerValue.optional(),
  })
  .strict();

export const readinessParams = z.object({ tenant: z.string().regex(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/, 'must be a tenant id') });
