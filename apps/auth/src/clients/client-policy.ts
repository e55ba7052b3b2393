import { oidc } from '../oidc/native-modules';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
const FORBIDDEN_SCHEMES = new Set(['javascript:', 'data:', 'file:', 'vbscript:', 'blob:', 'about:', 'ftp:', 'ws:', 'wss:']);
const MAX_REDIRECT_URIS = 10;
const MAX_NAME_LENGTH = 200;

export interface ClientPolicyOptions {
  allowPrivateUseRedirects: boolean;
}

/** The parts of oidc-provider's client-schema object our policy reads and rewrites. */
interface MutableClientMetadata {
  redirect_uris?: unknown;
  application_type?: string;
  scope?: string;
  client_name?: unknown;
  grant_types?: string[];
  jwks_uri?: unknown;
}

/**
 * Registration policy shared by DCR and CIMD (oidc-provider calls it synchronously while it
 * builds the client schema, before its own validation):
 * - `scope` metadata is dropped, never rejected (claude.ai registered `scope: "claudeai"`);
 *   scope is decided per request against the tenant's resource server.
 * - loopback `http` or private-use redirect URIs make the client `native` unless it set
 *   `application_type` itself, which gives RFC 8252 port-agnostic loopback matching.
 * - non-loopback `http`, dangerous schemes, more than 10 URIs and oversized names are refused.
 * - clients that do not list grant types get `refresh_token` beside `authorization_code`.
 * - `jwks_uri` is refused (issue 18): it would make the server fetch a URL an unauthenticated
 *   registrant chose (port probing of loopback/private hosts); `private_key_jwt` clients send
 *   their keys inline as `jwks`, which needs no fetch at all.
 */
export function applyClientPolicy(metadata: MutableClientMetadata, explicitType: boolean, o: ClientPolicyOptions): void {
  const Invalid = oidc.errors.InvalidClientMetadata;
  const InvalidRedirect = oidc.errors.InvalidRedirectUri;
  delete metadata.scope;
  if (metadata.jwks_uri !== undefined) throw new Invalid('jwks_uri is not accepted: send the public keys inline as jwks');
  if (typeof metadata.client_name === 'string' && metadata.client_name.length > MAX_NAME_LENGTH) {
    throw new Invalid(`client_name must be at most ${MAX_NAME_LENGTH} characters`);
  }
  const uris = Array.isArray(metadata.redirect_uris) ? (metadata.redirect_uris as unknown[]) : [];
  if (uris.length > MAX_REDIRECT_URIS) throw new InvalidRedirect(`redirect_uris must list at most ${MAX_REDIRECT_URIS} URIs`);
  let nativeHint = false;
  for (const raw of uris) {
    if (typeof raw !== 'string') continue; // oidc-provider's own schema names the type error
    const url = URL.parse(raw);
    if (!url) continue;
    if (FORBIDDEN_SCHEMES.has(url.protocol)) throw new InvalidRedirect(`redirect_uris must not use the ${url.protocol} scheme`);
    if (url.username || url.password) throw new InvalidRedirect('redirect_uris must not contain userinfo');
    if (url.protocol === 'http:') {
      if (!LOOPBACK_HOSTS.has(url.hostname)) throw new InvalidRedirect('redirect_uris may use http only for loopback addresses');
      nativeHint = true;
    } else if (url.protocol !== 'https:') {
      if (!o.allowPrivateUseRedirects) throw new InvalidRedirect(`redirect_uris must not use the private-use scheme ${url.protocol}`);
      nativeHint = true;
    }
  }
  if (nativeHint && !explicitType) metadata.application_type = 'native';
}
