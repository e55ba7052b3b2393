import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload } from 'jose';
import { ADMIN_USERNAME, TENANT_ID } from './schemas';

/** The console's scope at the platform issuer. */
export const CONSOLE_SCOPE = 'console';
const METADATA_TTL_MS = 5 * 60_000;

/** What the registry needs of the platform issuer's metadata (RFC 8414 / OIDC discovery). */
export interface IssuerMetadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
  /** RFC 9207: the issuer adds `iss` to authorization responses (then the client must check it). */
  authorization_response_iss_parameter_supported?: boolean;
}

/** A console administrator as a verified platform access token names them. */
export interface PlatformIdentity {
  tenantId: string;
  username: string;
  name: string | null;
}

/** The issuer (metadata, JWKS or token endpoint) could not be reached or answered nonsense. */
export class PlatformUnavailableError extends Error {
  override readonly name = 'PlatformUnavailableError';
}

/** The issuer refused the code, or the token is not one the registry accepts. */
export class PlatformTokenError extends Error {
  override readonly name = 'PlatformTokenError';
}

export interface PlatformIssuerSettings {
  /** `CONSOLE_ISSUER`, without a trailing slash: compared exactly with `iss`. */
  issuer: string;
  clientId: string;
  /** `${REGISTRY_PUBLIC_URL}/v1`, read on every use (the public URL may be learnt after listen). */
  audience: () => string;
  timeoutMs?: number;
  /**
   * CONSOLE_ISSUER_INTERNAL_URL: the origin server-side calls (metadata, token, JWKS) go to when
   * the public issuer origin is not reachable from here. Browser-facing URLs stay public.
   */
  backChannelOrigin?: string;
}

/**
 * The registry's side of the platform's OAuth (console sign-in, BFF): metadata discovery (cached),
 * the code exchange (PKCE, RFC 8707 `resource`), and access-token verification with jose —
 * remote JWKS, pinned issuer and audience, ES256 only, `typ: at+jwt`, scope `console`, and a
 * `tid` that matches the `<tenant>|<username>` subject.
 */
export class PlatformIssuer {
  private cached: { at: number; metadata: IssuerMetadata } | undefined;
  private inflight: Promise<IssuerMetadata> | undefined;
  private jwks: { uri: string; set: ReturnType<typeof createRemoteJWKSet> } | undefined;
  private readonly timeoutMs: number;

  constructor(private readonly settings: PlatformIssuerSettings) {
    this.timeoutMs = settings.timeoutMs ?? 5_000;
  }

  get issuer(): string {
    return this.settings.issuer;
  }

  get clientId(): string {
    return this.settings.clientId;
  }

  get audience(): string {
    return this.settings.audience();
  }

  /** The issuer's metadata (cached five minutes; a failure is not cached). */
  async metadata(): Promise<IssuerMetadata> {
    if (this.cached && Date.now() - this.cached.at < METADATA_TTL_MS) return this.cached.metadata;
    this.inflight ??= this.fetchMetadata().finally(() => (this.inflight = undefined));
    return this.inflight;
  }

  private async fetchMetadata(): Promise<IssuerMetadata> {
    const url = this.backChannel(`${this.settings.issuer}/.well-known/openid-configuration`);
    let body: Record<string, unknown>;
    try {
      const res = await fetch(url, {
        headers: { accept: 'application/json' },
        redirect: 'error',
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      body = (await res.json()) as Record<string, unknown>;
    } catch (err) {
      throw new PlatformUnavailableError(`platform issuer metadata ${url} unavailable: ${(err as Error).message}`, { cause: err });
    }
    // RFC 8414 §3.3: the metadata must name the issuer it was fetched for (no mix-up).
    if (body.issuer !== this.settings.issuer)
      throw new PlatformUnavailableError(`platform issuer metadata names issuer ${String(body.issuer)}, expected ${this.settings.issuer}`);
    for (const key of ['authorization_endpoint', 'token_endpoint', 'jwks_uri'] as const) {
      if (typeof body[key] !== 'string' || !URL.canParse(body[key]))
        throw new PlatformUnavailableError(`platform issuer metadata has no usable ${key}`);
    }
    const published = body as unknown as IssuerMetadata;
    // The issuer may build endpoint URLs from the Host it was asked on: the browser gets the
    // public origin, the registry's own calls the back-channel one.
    const metadata: IssuerMetadata = {
      ...published,
      authorization_endpoint: this.frontChannel(published.authorization_endpoint),
      token_endpoint: this.backChannel(published.token_endpoint),
      jwks_uri: this.backChannel(published.jwks_uri),
    };
    this.cached = { at: Date.now(), metadata };
    return metadata;
  }

  /** A URL on the issuer's origin moved to the back-channel origin (unchanged without one). */
  private backChannel(url: string): string {
    return this.settings.backChannelOrigin ? withOrigin(url, this.settings.backChannelOrigin) : url;
  }

  /** A URL on the back-channel origin moved to the issuer's public origin (unchanged without one). */
  private frontChannel(url: string): string {
    return this.settings.backChannelOrigin ? withOrigin(url, this.settings.issuer) : url;
  }

  /** The authorization request URL (code flow, PKCE S256, `resource` = the admin API audience). */
  async authorizationUrl(p: { redirectUri: string; state: string; codeChallenge: string; loginHint?: string }): Promise<string> {
    const metadata = await this.metadata();
    const url = new URL(metadata.authorization_endpoint);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', this.settings.clientId);
    url.searchParams.set('redirect_uri', p.redirectUri);
    url.searchParams.set('scope', CONSOLE_SCOPE);
    url.searchParams.set('resource', this.audience);
    url.searchParams.set('state', p.state);
    url.searchParams.set('code_challenge', p.codeChallenge);
    url.searchParams.set('code_challenge_method', 'S256');
    if (p.loginHint) url.searchParams.set('login_hint', p.loginHint);
    return url.toString();
  }

  /** Redeems an authorization code (public client: no secret, the PKCE verifier instead); returns the access token. */
  async exchangeCode(p: { code: string; verifier: string; redirectUri: string }): Promise<string> {
    const metadata = await this.metadata();
    const form = new URLSearchParams({
      grant_type: 'authorization_code',
      code: p.code,
      redirect_uri: p.redirectUri,
      client_id: this.settings.clientId,
      code_verifier: p.verifier,
      resource: this.audience,
    });
    let res: Response;
    try {
      res = await fetch(metadata.token_endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: form,
        redirect: 'error',
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      throw new PlatformUnavailableError(`platform token endpoint unreachable: ${(err as Error).message}`, { cause: err });
    }
    const body = (await res.json().catch(() => ({}))) as { access_token?: unknown; error?: unknown };
    if (res.status >= 500) throw new PlatformUnavailableError(`platform token endpoint answered ${res.status}`);
    if (!res.ok || typeof body.access_token !== 'string') {
      throw new PlatformTokenError(
        `platform token endpoint refused the code (${res.status}${typeof body.error === 'string' ? ` ${body.error}` : ''})`,
      );
    }
    return body.access_token;
  }

  /** Verifies a platform access token and returns who it names; throws PlatformTokenError when it is not acceptable. */
  async verifyAccessToken(token: string): Promise<PlatformIdentity> {
    const metadata = await this.metadata();
    if (this.jwks?.uri !== metadata.jwks_uri) {
      this.jwks = {
        uri: metadata.jwks_uri,
        set: createRemoteJWKSet(new URL(metadata.jwks_uri), { timeoutDuration: this.timeoutMs, cooldownDuration: 30_000 }),
      };
    }
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.jwks.set, {
        issuer: this.settings.issuer,
        audience: this.audience,
        algorithms: ['ES256'],
        typ: 'at+jwt',
        requiredClaims: ['sub', 'exp', 'tid'],
      }));
    } catch (err) {
      if (err instanceof errors.JWKSTimeout) throw new PlatformUnavailableError('platform JWKS unavailable', { cause: err });
      throw new PlatformTokenError(`platform access token refused: ${err instanceof errors.JOSEError ? err.code : 'invalid'}`, {
        cause: err,
      });
    }
    const scopes = typeof payload.scope === 'string' ? payload.scope.split(' ') : [];
    if (!scopes.includes(CONSOLE_SCOPE)) throw new PlatformTokenError(`platform access token lacks the ${CONSOLE_SCOPE} scope`);
    if (payload.cnf !== undefined) throw new PlatformTokenError('sender-constrained tokens are not accepted here');
    const tid = payload.tid;
    const sub = String(payload.sub);
    if (typeof tid !== 'string' || !TENANT_ID.test(tid)) throw new PlatformTokenError('platform access token has no valid tid');
    // `sub` = `<tenant>|<username>`; tenant ids never contain `|`, so the first bar splits it.
    const bar = sub.indexOf('|');
    const username = sub.slice(bar + 1);
    if (bar <= 0 || sub.slice(0, bar) !== tid || !ADMIN_USERNAME.test(username))
      throw new PlatformTokenError('platform access token subject does not name an admin of its tenant');
    return { tenantId: tid, username, name: typeof payload.name === 'string' ? payload.name : null };
  }
}

/** `url` with the scheme, host and port of `origin` (path, query kept). */
function withOrigin(url: string, origin: string): string {
  const u = new URL(url);
  const o = new URL(origin);
  u.protocol = o.protocol;
  // hostname and port separately: assigning `host` without a port keeps the old port.
  u.hostname = o.hostname;
  u.port = o.port;
  return u.toString();
}
