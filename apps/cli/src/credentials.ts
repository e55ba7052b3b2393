import type { ApiTarget } from './api/api-client';
import { freshLogin } from './auth/pkce-login';
import { loadLogin, saveLogin, type StoredLogin } from './auth/token-store';
import { CliError, EXIT, usageError } from './exit-codes';

/** The environment variables the CLI reads (documented in apps/cli/README.md). */
export const ENV = {
  url: 'SWITCHBOARD_URL',
  apiKey: 'SWITCHBOARD_API_KEY',
  token: 'SWITCHBOARD_TOKEN',
  issuer: 'SWITCHBOARD_ISSUER',
} as const;

const DEFAULT_TIMEOUT_MS = 30_000;

/** The registry's URL from `--registry` or SWITCHBOARD_URL, without a trailing slash. */
export function registryUrl(env: NodeJS.ProcessEnv, flag: string | undefined): string {
  const raw = flag ?? env[ENV.url];
  if (!raw)
    throw usageError(
      `registry: set ${ENV.url} (or pass --registry) to the registry's URL, e.g. https://admin.switchboard.example`,
      'registry',
    );
  try {
    const url = new URL(raw);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('not http(s)');
    return url.href.replace(/\/+$/, '');
  } catch {
    throw usageError(`registry: "${raw}" is not an http(s) URL`, 'registry');
  }
}

/**
 * Where to send admin API calls and with which credential: `--registry` or SWITCHBOARD_URL (the
 * registry's public URL), then SWITCHBOARD_API_KEY (a tenant API key, `sbk_…`, made in the console
 * or with POST /v1/keys), SWITCHBOARD_TOKEN (a platform access token with the `console` scope), or
 * the login `switchboard login` stored for this registry (refreshed when due).
 * The tenant is the credential's: there is no tenant flag to get wrong.
 */
export function resolveTarget(env: NodeJS.ProcessEnv, flags: { url?: string; timeoutMs?: number }): ApiTarget {
  const baseUrl = registryUrl(env, flags.url);
  const fixed = env[ENV.apiKey] ?? env[ENV.token];
  return { baseUrl, bearer: fixed ? async () => fixed : storedLoginBearer(env, baseUrl), timeoutMs: flags.timeoutMs ?? DEFAULT_TIMEOUT_MS };
}

/**
 * The access token of the stored login, refreshed when due — once per process however many calls
 * ask at the same time: refresh tokens rotate, and a replayed one makes the issuer revoke the login.
 */
function storedLoginBearer(env: NodeJS.ProcessEnv, baseUrl: string): () => Promise<string> {
  let current: StoredLogin | undefined;
  let inflight: Promise<StoredLogin> | undefined;
  const load = async (): Promise<StoredLogin> => {
    const stored = await loadLogin(env, baseUrl);
    if (!stored) {
      throw new CliError(
        `authorization: set ${ENV.apiKey} to a tenant API key (sbk_…) or ${ENV.token} to a platform access token, or run switchboard login`,
        EXIT.auth,
        {
          code: 'UNAUTHENTICATED',
          field: 'authorization',
        },
      );
    }
    const fresh = await freshLogin(stored);
    if (fresh !== stored) await saveLogin(env, baseUrl, fresh);
    return fresh;
  };
  return async () => {
    if (current && current.expiresAt - Date.now() > 60_000) return current.accessToken;
    inflight ??= load().finally(() => (inflight = undefined));
    current = await inflight;
    return current.accessToken;
  };
}
