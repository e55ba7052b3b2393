import { randomBytes } from 'node:crypto';
import { tenantAuthSchema } from '@switchboard/catalog';
import { register } from '@switchboard/testing';
import { freePort, startAuth, type TestAuth } from './auth-harness';
import { startGateway, type TestGateway } from './platform';
import { idpClient, signInAt, startTestIdp, type TestIdp } from './test-idp';

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
  const second = await startAuth({
    tenants: [{ id: tenant, auth }],
    gatewayPublicUrl,
    schema: first.schema,
    env: { SECRETS_KEY, AUTH_PUBLIC_URL: first.baseUrl },
  });
  const env = (port: number) => ({
    AUTH_PUBLIC_URL: first.baseUrl,
    AUTH_JWKS_COOLDOWN_MS: '0',
    GATEWAY_PUBLIC_URL: gatewayPublicUrl,
    GATEWAY_PORT: String(port),
  });
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
      const r = await register(issuer, {
        client_name: 'Enterprise MCP client',
        redirect_uris: [],
        response_types: [],
        grant_types: ['urn:ietf:params:oauth:grant-type:jwt-bearer'],
        token_endpoint_auth_method: 'client_secret_basic',
      });
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
