import { switchboardMetrics } from '@switchboard/telemetry';
import type { AuthServices } from '../auth-services';
import type { AuthTenant } from '../tenants/tenant-auth';
import { openidClient } from './upstream-oidc';

type Configuration = Awaited<ReturnType<AuthServices['upstream']['config']>>;
/** The token response of a redeemed callback (`claims()` gives the ID token's claims). */
export type IdpTokens = Awaited<ReturnType<typeof openidClient.authorizationCodeGrant>>;

/** What a flow keeps between the redirect to the tenant's IdP and its callback. */
export interface IdpAuthorizationSecrets {
  verifier: string;
  nonce: string;
}

/**
 * Starts authorization code + PKCE S256 + nonce at the tenant's IdP, returning to the one
 * redirect URI tenants register (`<issuer>/federation/callback`): what the callback needs
 * (`data` with the verifier and nonce) is stored under a fresh `state` for `purpose`. Every
 * federated flow (console login, connected-accounts login, test sign-in) starts here.
 */
export async function startIdpAuthorization(
  s: AuthServices,
  cfg: Configuration,
  tenant: AuthTenant,
  scopes: string[],
  purpose: string,
  data: (secrets: IdpAuthorizationSecrets) => object,
  options: { ttlSeconds?: number; extra?: Record<string, string> } = {},
): Promise<{ url: URL; state: string }> {
  const verifier = openidClient.randomPKCECodeVerifier();
  const state = openidClient.randomState();
  const nonce = openidClient.randomNonce();
  await s.federation.put(state, tenant.id, purpose, data({ verifier, nonce }), options.ttlSeconds);
  const url = openidClient.buildAuthorizationUrl(cfg, {
    redirect_uri: `${tenant.issuer}/federation/callback`,
    scope: scopes.join(' '),
    code_challenge: await openidClient.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    ...options.extra,
  });
  return { url, state };
}

/** Redeems the IdP's callback (`query` = the callback's search string) for tokens, checking state, PKCE and nonce; an ID token is required. */
export function redeemIdpCallback(
  cfg: Configuration,
  tenant: AuthTenant,
  query: string,
  state: string,
  saved: IdpAuthorizationSecrets,
): Promise<IdpTokens> {
  return openidClient.authorizationCodeGrant(cfg, new URL(`${tenant.issuer}/federation/callback${query}`), {
    pkceCodeVerifier: saved.verifier,
    expectedState: state,
    expectedNonce: saved.nonce,
    idTokenExpected: true,
  });
}

/**
 * Outcomes of a federated sign-in step, the `outcome` of `auth_sign_ins_total{idp="oidc"}` (a
 * fixed set: bounded). `not_started_here`: state and browser cookie differ (login CSRF or
 * cookies lost); `unknown_state`: expired, replayed or never issued; `idp_refused`: the IdP's
 * answer failed the code exchange or ID-token checks; `session_expired`: the authorization
 * waiting for this sign-in is gone.
 */
export type FederatedSignInOutcome = 'ok' | 'not_started_here' | 'unknown_state' | 'idp_refused' | 'session_expired';

export function countFederatedSignIn(outcome: FederatedSignInOutcome): void {
  switchboardMetrics().auth.signIns.add(1, { idp: 'oidc', outcome });
}
