import { randomBytes } from 'node:crypto';
import { tenantAuthSchema } from '@switchboard/catalog';
import { approve, pkcePair, register, TestBrowser, token } from '@switchboard/testing';
import { freePort, startAuth, type TestAuth } from './auth-harness';
import { startGateway, type TestGateway } from './platform';
import { startTestIdp, type TestIdp } from './test-idp';
import { TOKEN_EXCHANGE_GRANT } from './id-jag-exchange';

/** The MCP client's id and secret at the enterprise IdP (SSO + token exchange). */
export const IDP_CLIENT = { id: 'mcp-app', secret: 'mcp-app-idp-secret-0123456789' } as const;
const IDP_REDIRECT = 'http://127.0.0.1:9/sso-callback';

/** Two auth replicas on one schema and key, two gateways, one enterprise IdP issuing ID-JAGs. */
export interface EnterpriseStand {
  idp: TestIdp;
  replicas: [TestAuth, TestAuth];
  gateways: [TestGateway, TestGateway];
  /** The tenant's issuer (both replicas serve it) and MCP URL (the tokens' audience). */
  issuer: string;
  mcpUrl: string;
  /** Applies new auth settings of the tenant on both replicas, as the registry feed would. */
  setAuth(auth: unknown): void;
  /** Starts both gateways with the tenant's current auth settings (once the IdP is trusted and clients registered). */
  startGateways(): Promise<void>;
  /** Registers a confidential JWT-bearer client at the tenant (DCR); id and secret. */
  registerClient(): Promise<{ id: string; secret: string }>;
  /** Signs `user` in at the IdP as the MCP client (SSO) and returns the ID token. */
  idToken(user: string): Promise<string>;
  close(): Promise<void>;
}

/** Signs `user` in at `idp` as the MCP client (authorization code + PKCE, auto-approved) and returns the ID token. */
export async function signInAt(idp: TestIdp, user: string): Promise<string> {
  idp.user = user;
  const { verifier, challenge } = pkcePair();
  const url = `${idp.issuer}/auth?${new URLSearchParams({ response_type: 'code', client_id: IDP_CLIENT.id, redirect_uri: IDP_REDIRECT, scope: 'openid', state: 's', code_challenge: challenge, code_challenge_method: 'S256' })}`;
  const back = await approve(new TestBrowser(), url, IDP_REDIRECT);
  const form = { grant_type: 'authorization_code', code: back.searchParams.get('code') ?? '', redirect_uri: IDP_REDIRECT, code_verifier: verifier, client_id: IDP_CLIENT.id, client_secret: IDP_CLIENT.secret };
  const t = await token(idp.issuer, form);
  if (t.status !== 200) throw new Error(`IdP sign-in failed: ${t.status} ${JSON.stringify(t.body)}`);
  return String(t.body.id_token);
}

/** The MCP client as the enterprise IdP knows it (SSO and token exchange). */
export function idpClient(): { client_id: string; client_secret: string; redirect_uris: string[]; grant_types: string[] } {
  return { client_id: IDP_CLIENT.id, client_secret: IDP_CLIENT.secret, redirect_uris: [IDP_REDIRECT], grant_types: ['authorization_code', TOKEN_EXCHANGE_GRANT] };
}

/**
 * Starts the stand for tenant `tenant` protected with `auth` (its `enterpriseIdps` may be added
 * later with setAuth, once client ids are known). Both replicas announce the first one's URL
 * as their public URL and both gateways the first gateway's, as behind load balancers; tests
 * reach each replica and gateway at its own port.
 */
export async function startEnterpriseStand(tenant: string, auth: Record<string, unknown>): Promise<EnterpriseStand> {
  const idp = await startTestIdp([idpClient()], { idJag: true });
  const gwPorts = [await freePort(), await freePort()] as const;
  const gatewayPublicUrl = `http://127.0.0.1:${gwPorts[0]}`;
  const SECRETS_KEY = randomBytes(32).toString('base64');
  const first = await startAuth({ tenants: [{ id: tenant, auth }], gatewayPublicUrl, env: { SECRETS_KEY } });
  const second = await startAuth({ tenants: [{ id: tenant, auth }], gatewayPublicUrl, schema: first.schema, env: { SECRETS_KEY, AUTH_PUBLIC_URL: first.baseUrl } });
  const env = (port: number) => ({ AUTH_PUBLIC_URL: first.baseUrl, AUTH_JWKS_COOLDOWN_MS: '0', GATEWAY_PUBLIC_URL: gatewayPublicUrl, GATEWAY_PORT: String(port) });
  const issuer = first.issuer(tenant);
  let current: unknown = auth;
  const stand: EnterpriseStand = {
    idp,
    replicas: [first, second],
    gateways: [] as unknown as [TestGateway, TestGateway],
    issuer,
    mcpUrl: first.mcpUrl(tenant),
    setAuth: (next) => {
      current = next;
      for (const r of [first, second]) r.services.tenants.apply({ id: tenant, name: tenant, auth: tenantAuthSchema.parse(next) });
    },
    startGateways: async () => {
      const tenants = [{ id: tenant, name: tenant, catalogs: [{ builtin: 'demo' }], auth: current }];
      stand.gateways = [await startGateway(gwPorts[0], tenants, env(gwPorts[0])), await startGateway(gwPorts[1], tenants, env(gwPorts[1]))];
    },
    registerClient: async () => {
      const r = await register(issuer, { client_name: 'Enterprise MCP client', redirect_uris: [], response_types: [], grant_types: ['urn:ietf:params:oauth:grant-type:jwt-bearer'], token_endpoint_auth_method: 'client_secret_basic' });
      if (r.status !== 201) throw new Error(`registration failed: ${r.status} ${JSON.stringify(r.body)}`);
      return { id: String(r.body.client_id), secret: String(r.body.client_secret) };
    },
    idToken: (user) => signInAt(idp, user),
    close: async () => {
      await Promise.all(stand.gateways.map((g) => g.close()));
      await second.close();
      await first.close();
      await idp.close();
    },
  };
  return stand;
}
