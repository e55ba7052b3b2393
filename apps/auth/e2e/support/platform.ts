import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import lightInject, { type InjectOptions as LightInjectOptions } from 'light-my-request';
import { stringify } from 'yaml';
// Test-only: the resource-server tests need a real gateway beside the real auth service.
import { loadGatewayConfig } from '../../../gateway/src/config/config';
import { createGateway } from '../../../gateway/src/create-gateway';
import { freePort, startAuth, type StartAuthOptions, type TestAuth } from './auth-harness';

export interface TestGateway {
  app: NestFastifyApplication;
  baseUrl: string;
  mcpUrl(tenant: string): string;
  /** Inject into the gateway's HTTP server: MCP endpoint paths reach the endpoint, the rest Nest's Fastify, as on the wire. */
  inject(o: InjectOptions & { url: string }): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

/** Boots a gateway on a given port with tenants written to a temp YAML file. */
export async function startGateway(port: number, tenants: unknown[], env: Record<string, string>): Promise<TestGateway> {
  const dir = await mkdtemp(path.join(tmpdir(), 'sb-auth-gw-'));
  const file = path.join(dir, 'tenants.yaml');
  await writeFile(file, stringify({ tenants }));
  const config = loadGatewayConfig({
    TENANTS_FILE: file,
    LOG_LEVEL: 'silent',
    GATEWAY_PORT: String(port),
    GATEWAY_HOST: '127.0.0.1',
    ...env,
  });
  const app = await createGateway(config);
  await app.listen({ port, host: '127.0.0.1' });
  const baseUrl = `http://127.0.0.1:${port}`;
  const server = app.getHttpServer();
  return {
    app,
    baseUrl,
    mcpUrl: (t) => `${baseUrl}/t/${t}/mcp`,
    inject: (o) => lightInject((req, res) => server.emit('request', req, res), o as LightInjectOptions),
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
export async function startPlatform(
  o: Omit<StartAuthOptions, 'gatewayPublicUrl'> & { gatewayEnv?: Record<string, string> },
): Promise<Platform> {
  const gwPort = await freePort();
  const auth = await startAuth({ ...o, gatewayPublicUrl: `http://127.0.0.1:${gwPort}` });
  const gateway = await startGateway(
    gwPort,
    o.tenants.map((t) => ({
      id: t.id,
      name: t.name ?? t.id,
      catalogs: [{ builtin: 'demo' }],
      ...(t.auth === undefined ? {} : { auth: t.auth }),
    })),
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
