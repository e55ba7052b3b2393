/** A request the `authenticate` hook accepted: the verified OAuth client and its scopes. */
export interface AuthGranted {
  ok: true;
  clientId?: string;
  subject?: string;
  scopes: readonly string[];
  /** The token's `groups` claim, when it has one (tenant interceptors' CEL rules read it). */
  groups?: readonly string[];
  /** The verified bearer token: exchanged at the auth service for an upstream's per-user token, never sent upstream. */
  token?: string;
}

/** A refusal the transport sends as is (e.g. 401/403 with `WWW-Authenticate`). */
export interface AuthDenied {
  ok: false;
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type AuthOutcome = AuthGranted | AuthDenied;
