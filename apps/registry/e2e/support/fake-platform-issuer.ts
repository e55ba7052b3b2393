import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';

/**
 * A small OAuth authorization server standing in for the platform issuer (built in apps/auth) in
 * the registry's e2e tests, implementing the console contract: metadata at
 * `<issuer>/.well-known/openid-configuration` and `/.well-known/oauth-authorization-server/platform`,
 * an authorize endpoint that "signs in" the person the test chose (checking the password with the
 * registry's `POST /internal/console/verify-login`, as the real issuer does) and redirects back with
 * a code, `state` and RFC 9207 `iss`; a token endpoint checking client_id, redirect_uri, PKCE S256
 * and the RFC 8707 resource; ES256 `at+jwt` access tokens (`sub` = `<tenant>|<username>`, `tid`,
 * `name`, `scope`); and the JWKS.
 */
export interface FakePlatformIssuer {
  /** `http://127.0.0.1:<port>/platform`. */
  issuer: string;
  /** What the console client must send (set once the registry's public URL is known). */
  client: { id: string; redirectUri: string; audience: string };
  /** Checks a password the way the platform issuer does (the registry's internal endpoint). */
  verifyLogin?: (tenant: string, username: string, password: string) => Promise<{ ok: boolean; name?: string }>;
  /** Who signs in at the next authorization request; `deny` is a person pressing "Cancel". */
  nextLogin: { tenant: string; username: string; password: string } | { deny: true } | undefined;
  /** Tweaks of the next issued token (wrong audience, …), for the negative tests. */
  tokenTweaks: TokenTweaks | undefined;
  /** Replaces `iss` on the next redirect (mix-up test). */
  issOverride: string | undefined;
  /** Every authorization request's query, and every token request's form. */
  authorizeRequests: URLSearchParams[];
  tokenRequests: URLSearchParams[];
  /** Signs an access token directly (what a CLI would hold). */
  mint(claims: MintClaims): Promise<string>;
  close(): Promise<void>;
}

export interface TokenTweaks {
  audience?: string;
  issuer?: string;
  typ?: string;
  scope?: string;
  tid?: string | null;
  /** Sign with a key that is not in the JWKS. */
  foreignKey?: boolean;
  expiresInSeconds?: number;
}

export interface MintClaims extends TokenTweaks {
  tenant: string;
  username: string;
  name?: string;
  sub?: string;
}

interface PendingCode {
  challenge: string;
  redirectUri: string;
  resource: string;
  clientId: string;
  tenant: string;
  username: string;
  name: string;
}

const readBody = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });

export async function startFakePlatformIssuer(): Promise<FakePlatformIssuer> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const foreign = await generateKeyPair('ES256');
  const kid = randomBytes(6).toString('hex');
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' };
  const codes = new Map<string, PendingCode>();

  const state: FakePlatformIssuer = {
    issuer: '',
    client: { id: 'switchboard-console', redirectUri: '', audience: '' },
    nextLogin: undefined,
    tokenTweaks: undefined,
    issOverride: undefined,
    authorizeRequests: [],
    tokenRequests: [],
    mint: (claims) => sign(claims),
    close: async () => undefined,
  };

  async function sign(c: MintClaims): Promise<string> {
    const key: CryptoKey = c.foreignKey ? foreign.privateKey : privateKey;
    const payload: Record<string, unknown> = { scope: c.scope ?? 'console', client_id: state.client.id, name: c.name ?? c.username };
    const tid = c.tid === undefined ? c.tenant : c.tid;
    if (tid !== null) payload.tid = tid;
    return new SignJWT(payload)
      .setProtectedHeader({ alg: 'ES256', typ: c.typ ?? 'at+jwt', kid })
      .setIssuer(c.issuer ?? state.issuer)
      .setAudience(c.audience ?? state.client.audience)
      .setSubject(c.sub ?? `${c.tenant}|${c.username}`)
      .setIssuedAt()
      .setJti(randomBytes(8).toString('hex'))
      .setExpirationTime(Math.floor(Date.now() / 1000) + (c.expiresInSeconds ?? 600))
      .sign(key);
  }

  const json = (res: ServerResponse, status: number, body: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
  };

  const metadata = () => ({
    issuer: state.issuer,
    authorization_endpoint: `${state.issuer}/auth`,
    token_endpoint: `${state.issuer}/token`,
    jwks_uri: `${state.issuer}/jwks`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    scopes_supported: ['console'],
    authorization_response_iss_parameter_supported: true,
  });

  async function authorize(url: URL, res: ServerResponse): Promise<void> {
    const q = url.searchParams;
    state.authorizeRequests.push(q);
    // A wrong client or redirect URI is never redirected to (RFC 6749 §4.1.2.1).
    if (q.get('client_id') !== state.client.id || q.get('redirect_uri') !== state.client.redirectUri)
      return json(res, 400, { error: 'invalid_request', error_description: 'unknown client or redirect_uri' });
    const back = new URL(state.client.redirectUri);
    back.searchParams.set('state', q.get('state') ?? '');
    back.searchParams.set('iss', state.issOverride ?? state.issuer);
    state.issOverride = undefined;
    const redirect = (): void => {
      res.writeHead(302, { location: back.toString() }).end();
    };
    const problem =
      q.get('response_type') !== 'code'
        ? 'unsupported_response_type'
        : q.get('code_challenge_method') !== 'S256' || !/^[A-Za-z0-9_-]{43}$/.test(q.get('code_challenge') ?? '')
          ? 'invalid_request'
          : !(q.get('scope') ?? '').split(' ').includes('console')
            ? 'invalid_scope'
            : q.get('resource') !== state.client.audience
              ? 'invalid_target'
              : undefined;
    if (problem) {
      back.searchParams.set('error', problem);
      return redirect();
    }
    const login = state.nextLogin;
    state.nextLogin = undefined;
    let name: string | undefined;
    if (login && !('deny' in login)) {
      const verdict = state.verifyLogin
        ? await state.verifyLogin(login.tenant, login.username, login.password)
        : { ok: true, name: login.username };
      if (verdict.ok) name = verdict.name ?? login.username;
    }
    if (!login || 'deny' in login || name === undefined) {
      back.searchParams.set('error', 'access_denied');
      return redirect();
    }
    const code = randomBytes(24).toString('base64url');
    codes.set(code, {
      challenge: q.get('code_challenge') ?? '',
      redirectUri: state.client.redirectUri,
      resource: q.get('resource') ?? '',
      clientId: state.client.id,
      tenant: login.tenant,
      username: login.username,
      name,
    });
    back.searchParams.set('code', code);
    redirect();
  }

  async function token(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const form = new URLSearchParams(await readBody(req));
    state.tokenRequests.push(form);
    const code = codes.get(form.get('code') ?? '');
    codes.delete(form.get('code') ?? '');
    if (form.get('grant_type') !== 'authorization_code' || !code) return json(res, 400, { error: 'invalid_grant' });
    if (form.get('client_id') !== code.clientId || form.get('redirect_uri') !== code.redirectUri)
      return json(res, 400, { error: 'invalid_grant', error_description: 'client or redirect_uri mismatch' });
    const verifier = form.get('code_verifier') ?? '';
    if (createHash('sha256').update(verifier).digest('base64url') !== code.challenge)
      return json(res, 400, { error: 'invalid_grant', error_description: 'PKCE verification failed' });
    if (form.get('resource') !== code.resource) return json(res, 400, { error: 'invalid_target' });
    const tweaks = state.tokenTweaks ?? {};
    state.tokenTweaks = undefined;
    const accessToken = await sign({ tenant: code.tenant, username: code.username, name: code.name, audience: code.resource, ...tweaks });
    json(res, 200, { access_token: accessToken, token_type: 'Bearer', expires_in: 600, scope: 'console' });
  }

  const http: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const path = url.pathname;
    const route = async () => {
      if (
        req.method === 'GET' &&
        (path === '/platform/.well-known/openid-configuration' || path === '/.well-known/oauth-authorization-server/platform')
      )
        return json(res, 200, metadata());
      if (req.method === 'GET' && path === '/platform/jwks') return json(res, 200, { keys: [jwk] });
      if (req.method === 'GET' && path === '/platform/auth') return authorize(url, res);
      if (req.method === 'POST' && path === '/platform/token') return token(req, res);
      json(res, 404, { error: 'not_found' });
    };
    route().catch((err: Error) => {
      if (!res.headersSent) json(res, 500, { error: 'server_error', error_description: err.message });
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  state.issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}/platform`;
  state.close = () =>
    new Promise<void>((resolve) => {
      http.closeAllConnections();
      http.close(() => resolve());
    });
  return state;
}
