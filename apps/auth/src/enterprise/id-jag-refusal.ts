/**
 * The checks an ID-JAG can fail, each named in the `invalid_grant` description, the audit
 * entry and the `check` label of `auth_id_jag_grants_total` (a closed set: bounded labels).
 */
export type IdJagCheck =
  | 'assertion'
  | 'typ'
  | 'iss'
  | 'jwks'
  | 'signature'
  | 'aud'
  | 'exp'
  | 'iat'
  | 'resource'
  | 'client_id'
  | 'client_not_allowed'
  | 'sub'
  | 'group'
  | 'scope'
  | 'jti';

/** A refused ID-JAG: answered as `invalid_grant` with `description`, audited and counted under `check`. */
export class IdJagRefusal extends Error {
  override readonly name = 'IdJagRefusal';
  constructor(
    readonly check: IdJagCheck,
    readonly description: string,
    readonly details: { issuer?: string; subject?: string } = {},
    options?: { cause?: unknown },
  ) {
    super(`${check}: ${description}`, options);
  }
}
