import type { FastifyRequest } from 'fastify';
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AuthServices } from '../auth-services';
import { readCookie } from '../http/request-helpers';
import type { AuthTenant } from '../tenants/tenant-auth';
import type { AccountLogin } from './account-login';

/** Who is signed in to a tenant's authorization server in this browser: a stable id (for CSRF tokens) and the account (the subject tokens carry). */
export interface BrowserSession {
  id: string;
  accountId: string;
}

/**
 * The browser's session at the tenant's provider: the signed session cookie oidc-provider set
 * at sign-in (keygrip signature checked with the tenant's cookie key), then the stored session;
 * else the connected-accounts page's own sign-in cookie (AccountLogin, sent only under
 * `<mount>/account`). The account is an opaque subject string, compared as a whole.
 */
export async function browserSession(
  s: AuthServices,
  login: AccountLogin,
  tenant: AuthTenant,
  req: FastifyRequest,
): Promise<BrowserSession | undefined> {
  return (await providerSession(s, tenant, req)) ?? login.account(tenant, req);
}

async function providerSession(s: AuthServices, tenant: AuthTenant, req: FastifyRequest): Promise<BrowserSession | undefined> {
  const name = `sb_${tenant.id}_session`;
  const id = readCookie(req, name);
  const sig = readCookie(req, `${name}.sig`);
  if (!id || !sig || id.length > 200) return undefined;
  const key = s.box.derive(`cookies:${tenant.id}`).toString('base64url');
  const expected = createHmac('sha1', key).update(`${name}=${id}`).digest('base64url');
  if (expected.length !== sig.length || !timingSafeEqual(Buffer.from(expected), Buffer.from(sig))) return undefined;
  const { provider } = await s.providers.get(tenant);
  const session = await provider.Session.find(id);
  const accountId = session?.accountId;
  return typeof accountId === 'string' && accountId ? { id, accountId } : undefined;
}
