import { z } from 'zod';

/**
 * The gateway's configuration, read once at boot from the environment. Every key is
 * documented beside its schema; a bad value lists every problem and stops the process.
 */
const schema = z.object({
  /** TCP port of the public MCP edge. */
  GATEWAY_PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** Interface to bind; loopback by default so a dev machine does not expose the edge. */
  GATEWAY_HOST: z.string().min(1).default('127.0.0.1'),
  /** Public base URL clients use (canonical MCP URLs, server cards). Defaults to http://GATEWAY_HOST:GATEWAY_PORT. */
  GATEWAY_PUBLIC_URL: z.url().optional(),
  /** When set (e.g. `mcp.example.com`), `https://{tenant}.{domain}/mcp` serves that tenant (host-based layout). */
  GATEWAY_DOMAIN: z.string().regex(/^[a-z0-9.-]+$/i, 'must be a DNS name').optional(),
  /** The file catalog source: tenants and their catalogs (validated at boot). */
  TENANTS_FILE: z.string().min(1).default('config/tenants.yaml'),
  /** Largest accepted MCP POST body in bytes (413 above). */
  GATEWAY_BODY_LIMIT: z.coerce.number().int().min(1024).max(64 * 1024 * 1024).default(1024 * 1024),
  /** Per-call timeout for upstream tool calls, in ms. */
  UPSTREAM_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  /** In-flight calls allowed per upstream server; more wait in a queue. */
  UPSTREAM_MAX_CONCURRENCY: z.coerce.number().int().min(1).max(10_000).default(32),
  /** URL of the chain-reader's MCP endpoint, used by `builtin: chain` catalogs. */
  CHAIN_READER_URL: z.url().optional(),
  /** Heartbeat interval and bounded lifetime of the legacy GET event stream, in ms. */
  SSE_HEARTBEAT_MS: z.coerce.number().int().min(100).default(15_000),
  SSE_MAX_LIFETIME_MS: z.coerce.number().int().min(1000).default(300_000),
  /** pino level. */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type GatewayConfig = z.infer<typeof schema> & { publicUrl: string };

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Parses the environment; throws ConfigError listing every invalid key. */
export function loadGatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n');
    throw new ConfigError(`Invalid gateway configuration:\n${problems}`);
  }
  const c = parsed.data;
  const publicUrl = (c.GATEWAY_PUBLIC_URL ?? `http://${c.GATEWAY_HOST}:${c.GATEWAY_PORT}`).replace(/\/+$/, '');
  return { ...c, publicUrl };
}
