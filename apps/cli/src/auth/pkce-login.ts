import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CliError, EXIT } from '../exit-codes';
import { issuerMetadata, storedLogin, tokenRequest } from './oauth';
import type { StoredLogin } from './token-store';

/** The platform issuer's public client for the CLI (apps/auth platform-issuer.ts). */
export const CLI_CLIENT_ID = 'switchboard-cli';
/** How long the loopback listener waits for the browser to come back. */
const LOGIN_WAIT_MS = 5 * 60_000;

const b64url = (b: Buffer) => b.toString('base64url');

export interface PkceLoginOptions {
  issuer: string;
  /** The admin API URL (`<registry>/v1`): the token's resource and audience. */
  resource: string;
  /** Shows the authorization URL (and may open a browser). */
  open: (url: string) => void;
}

/** Waits for one `GET /callback` on the loopback listener; answers the browser with a short page. */
function awaitCallback(server: Server): Promise<URLSearchParams> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(new CliError(`login: no answer from the browser within ${LOGIN_WAIT_MS / 1000} s`, EXIT.auth, { code: 'LOGIN_TIMEOUT' })),
      LOGIN_WAIT_MS,
    );
    server.on('request', (req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (url.pathname !== '/callback') return void res.writeHead(404).end();
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end('<!doctype html><title>Switchboard</title><p>Signed in. You can close this tab and return to the terminal.</p>');
      clearTimeout(timer);
      resolve(url.searchParams);
    });
  });
}

/**
 * Browser sign-in for a native app (RFC 8252): authorization code with PKCE S256 and a state,
 * redirected to a listener on 127.0.0.1 on a free port; the code is exchanged for the platform
 * tokens (`resource` = the admin API, RFC 8707). The `iss` of the answer is checked when the
 * issuer says it sends one (RFC 9207).
 */
export async function pkceLogin(o: PkceLoginOptions): Promise<StoredLogin> {
  const metadata = await issuerMetadata(o.issuer);
  const verifier = b64url(randomBytes(32));
  const state = b64url(randomBytes(16));
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const redirectUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
  try {
    const authorize = new URL(metadata.authorization_endpoint);
    const params = {
      response_type: 'code',
      client_id: CLI_CLIENT_ID,
      redirect_uri: redirectUri,
      scope: 'console',
      resource: o.resource,
      state,
      code_challenge: b64url(createHash('sha256').update(verifier).digest()),
      code_challenge_method: 'S256',
    };
    for (const [k, v] of Object.entries(params)) authorize.searchParams.set(k, v);
    const answer = awaitCallback(server);
    o.open(authorize.href);
    const got = await answer;
    if (got.get('state') !== state)
      throw new CliError('login: the browser came back with another state (not this sign-in)', EXIT.auth, { code: 'STATE_MISMATCH' });
    if (got.get('error'))
      throw new CliError(`login: the issuer refused: ${got.get('error')} ${got.get('error_description') ?? ''}`.trim(), EXIT.auth, {
        code: 'LOGIN_REFUSED',
      });
    if (metadata.authorization_response_iss_parameter_supported && got.get('iss') !== metadata.issuer)
      throw new CliError('login: the answer came from another issuer', EXIT.auth, { code: 'ISSUER_MISMATCH' });
    const code = got.get('code');
    if (!code) throw new CliError('login: the browser came back without a code', EXIT.auth, { code: 'LOGIN_REFUSED' });
    const tokens = await tokenRequest(metadata, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      client_id: CLI_CLIENT_ID,
      code_verifier: verifier,
      resource: o.resource,
    });
    return storedLogin(metadata, CLI_CLIENT_ID, o.resource, tokens);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** A fresh access token for a stored login: the stored one while it has a minute left, else a refresh (the new pair is returned). */
export async function freshLogin(login: StoredLogin): Promise<StoredLogin> {
  if (login.expiresAt - Date.now() > 60_000) return login;
  if (!login.refreshToken)
    throw new CliError('authorization: the stored login expired; run switchboard login again', EXIT.auth, {
      code: 'UNAUTHENTICATED',
      field: 'authorization',
    });
  const metadata = await issuerMetadata(login.issuer);
  const tokens = await tokenRequest(metadata, {
    grant_type: 'refresh_token',
    refresh_token: login.refreshToken,
    client_id: login.clientId,
    resource: login.resource,
  });
  return storedLogin(metadata, login.clientId, login.resource, tokens, login);
}
