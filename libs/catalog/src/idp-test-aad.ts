/**
 * AAD of the two sealed blobs of a "test sign-in" against a tenant's IdP (both sealed with the
 * registry's SECRETS_KEY, which the auth service holds as CATALOG_SECRETS_KEY): the `ticket` the
 * registry hands the admin's browser to start it, and the `result` the auth service sends back
 * to the console. `id` is the test's random id; a blob of another tenant or test does not open.
 */
export function idpTestAad(tenantId: string, part: 'ticket' | 'result', id: string): string {
  return `idp-test:${part}:${tenantId}:${id}`;
}

/** What the registry seals into a test sign-in ticket (`<id>.<sealed>`). */
export interface IdpTestTicket {
  tenant: string;
  /** The IdP the registry has saved: the auth service refuses to test another one (its document lags). */
  issuer: string;
  clientId: string;
  /** Where the result goes: the registry's console Auth page. */
  returnTo: string;
  /** Epoch seconds. */
  exp: number;
}

/** What the auth service seals into the result (`#idp-test=<id>.<sealed>` on the console's URL). */
export type IdpTestResult =
  | { ok: true; issuer: string; claims: Record<string, unknown>; exp: number }
  | { ok: false; issuer: string; error: string; errorDescription: string; exp: number };
