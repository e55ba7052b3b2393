import { CliError, EXIT } from '../exit-codes';
import type { StoredLogin } from './token-store';

/** What the CLI needs of the platform issuer's metadata (RFC 8414). */
export interface IssuerMetadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  authorization_response_iss_parameter_supported?: boolean;
  device_authorization_endpoint?: string;
}

const TIMEOUT_MS = 15_000;

function unavailable(message: string, cause?: unknown): CliError {
  return new CliError(message, EXIT.unavailable, { code: 'ISSUER_UNAVAILABLE', field: 'issuer' }, { cause });
}

/**
 * The issuer's metadata, by RFC 8414 path insertion (`/.well-known/oauth-authorization-server/<path>`),
 * with `issuer` required to equal the configured issuer exactly (mix-up defence).
 */
export async function issuerMetadata(issuer: string): Promise<IssuerMetadata> {
  const u = new URL(issuer);
  const url = `${u.origin}/.well-known/oauth-authorization-server${u.pathname === '/' ? '' : u.pathname}`;
  let body: Partial<IssuerMetadata>;
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS), headers: { accept: 'application/json' } });
    if (!res.ok) throw unavailable(`issuer: ${url} answered HTTP ${res.status}`);
    body = (await res.json()) as Partial<IssuerMetadata>;
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw unavailable(`issuer: ${url} could not be read`, err);
  }
  if (body.issuer !== issuer || !body.authorization_endpoint || !body.token_endpoint)
    throw unavailable(`issuer: ${url} is not the metadata of ${issuer}`);
  return body as IssuerMetadata;
}

type TokenAnswer = { access_token?: string; refresh_token?: string; expires_in?: number; error?: string; error_description?: string };

/** One form-encoded POST to an issuer endpoint, answering the status and the JSON body. */
export async function postForm(
  url: string,
  form: Record<string, string>,
): Promise<{ status: number; body: TokenAnswer & Record<string, unknown> }> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      body: new URLSearchParams(form),
      signal: AbortSignal.timeout(TIMEOUT_MS),
      headers: { accept: 'application/json' },
    });
  } catch (err) {
    throw unavailable(`issuer: ${url} could not be reached`, err);
  }
  return { status: res.status, body: (await res.json().catch(() => ({}))) as TokenAnswer & Record<string, unknown> };
}

/** The OAuth error of an answer as a CliError (exit 3) naming the `error` code. */
export function oauthRefusal(what: string, status: number, body: TokenAnswer): CliError {
  return new CliError(
    `authorization: the issuer refused ${what}: ${body.error ?? `HTTP ${status}`}${body.error_description ? ` (${body.error_description})` : ''}`,
    EXIT.auth,
    {
      code: 'TOKEN_REFUSED',
      field: 'authorization',
    },
  );
}

/** A token-endpoint call (form-encoded); an OAuth error becomes a CliError naming the `error` code. */
export async function tokenRequest(
  metadata: IssuerMetadata,
  form: Record<string, string>,
): Promise<{ access_token: string; refresh_token?: string; expires_in?: number }> {
  const { status, body } = await postForm(metadata.token_endpoint, form);
  if (status !== 200 || typeof body.access_token !== 'string') throw oauthRefusal('the token request', status, body);
  return { access_token: body.access_token, refresh_token: body.refresh_token, expires_in: body.expires_in };
}

/** The stored login from a token answer. */
export function storedLogin(
  metadata: IssuerMetadata,
  clientId: string,
  resource: string,
  tokens: Awaited<ReturnType<typeof tokenRequest>>,
  previous?: StoredLogin,
): StoredLogin {
  return {
    issuer: metadata.issuer,
    clientId,
    resource,
    accessToken: tokens.access_token,
    ...((tokens.refresh_token ?? previous?.refreshToken) ? { refreshToken: tokens.refresh_token ?? previous?.refreshToken } : {}),
    expiresAt: Date.now() + (tokens.expires_in ?? 300) * 1000,
  };
}
