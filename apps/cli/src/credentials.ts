import type { ApiTarget } from './api/api-client';
import { CliError, EXIT, usageError } from './exit-codes';

/** The environment variables the CLI reads (documented in apps/cli/README.md). */
export const ENV = {
  url: 'SWITCHBOARD_URL',
  apiKey: 'SWITCHBOARD_API_KEY',
  token: 'SWITCHBOARD_TOKEN',
} as const;

const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * Where to send admin API calls and with which credential: `--registry` or SWITCHBOARD_URL (the
 * registry's public URL), then SWITCHBOARD_API_KEY (a tenant API key, `sbk_…`, made in the console
 * or with POST /v1/keys) or SWITCHBOARD_TOKEN (a platform access token with the `console` scope).
 * The tenant is the credential's: there is no tenant flag to get wrong.
 */
export function resolveTarget(env: NodeJS.ProcessEnv, flags: { url?: string; timeoutMs?: number }): ApiTarget {
  const raw = flags.url ?? env[ENV.url];
  if (!raw) throw usageError(`registry: set ${ENV.url} (or pass --registry) to the registry's URL, e.g. https://admin.switchboard.example`, 'registry');
  let baseUrl: string;
  try {
    const url = new URL(raw);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('not http(s)');
    baseUrl = url.href.replace(/\/+$/, '');
  } catch {
    throw usageError(`registry: "${raw}" is not an http(s) URL`, 'registry');
  }
  const bearer = env[ENV.apiKey] ?? env[ENV.token];
  if (!bearer) {
    throw new CliError(`authorization: set ${ENV.apiKey} to a tenant API key (sbk_…) or ${ENV.token} to a platform access token`, EXIT.auth, { code: 'UNAUTHENTICATED', field: 'authorization' });
  }
  return { baseUrl, bearer, timeoutMs: flags.timeoutMs ?? DEFAULT_TIMEOUT_MS };
}
