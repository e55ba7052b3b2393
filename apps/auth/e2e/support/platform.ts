import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { stringify } from 'yaml';
// Test-only: the resource-server tests need a real gateway beside the real auth service.
import { loadGatewayConfig } from '../../../gateway/src/config/config';
import { createGateway } from '../../../gateway/src/create-gateway';
import { GatewayRuntime } from '../../../gateway/src/gateway-runtime';
import { edgePaths } from '../../../gateway/src/edge-server';
import { freePort, startAuth, type StartAuthOptions, type TestAuth } from './auth-harness';

export interface TestGateway {
  app: NestFastifyApplication;
  baseUrl: string;
  mcpUrl(tenant: string): string;
  /** Fastify inject into the gateway: MCP endpoint paths reach the runtime's edge instance, the rest Nest's, as on a real server. */
  inject(o: InjectOptions & { url: string }): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

/** Boots a gateway on a given port with tenants written to a temp YAML file. */
export async function startGateway(port: number, tenants: unknown[], env: Record<string, string>): Promise<TestGateway> {
  const dir = await mkdtemp(path.join(tmpdir(), 'sb-auth-gw-'));
  const file = path.join(dir, 'tenants.yaml');
  await writeFile(file, stringify({ tenants }));
  const config = loadGatewayConfig({ TENANTS_FILE: file, LOG_LEVEL: 'silent', GATEWAY_PORT: String(port), GATEWAY_HOST: '127.0.0.1', ...env });
  const app = await createGateway(config);
  await app.listen({ port, host: '127.0.0.1' });
  const baseUrl = `http://127.0.0.1:${port}`;
  const edge = edgePaths(config);
  const runtime = app.get(GatewayRuntime);
  return {
    app,
    baseUrl,
    mcpUrl: (t) => `${baseUrl}/t/${t}/mcp`,
    inject: (o) => (edge.matches(o.url) ? runtime.edge : (app.getHttpAdapter().getInstance() as FastifyInstance)).inject(o),
    close: async () => {
      await app.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface Platform {
  auth: TestAuth;
  gateway: TestGateway;
  close(): Promise<void>;
}

/**
 * Auth + gateway wired to each other on loopback: each tenant gets the demo catalog and its
 * `auth` block in both services.
 */
export async function startPlatform(o: Omit<StartAuthOptions, 'gatewayPublicUrl'> & { gatewayEnv?: Record<string, string> }): Promise<Platform> {
  const gwPort = await freePort();
  const auth = await startAuth({ ...o, gatewayPublicUrl: `http://127.0.0.1:${gwPort}` });
  const gateway = await startGateway(
    gwPort,
    o.tenants.map((t) => ({ id: t.id, name: t.name ?? t.id, catalogs: [{ builtin: 'demo' }], ...(t.auth === undefined ? {} : { auth: t.auth }) })),
    { AUTH_PUBLIC_URL: auth.baseUrl, AUTH_JWKS_COOLDOWN_MS: '0', ...o.gatewayEnv },
  );
  return {
    auth,
    gateway,
    close: async () => {
      await gateway.close();
      await auth.close();
    },
  };
}
