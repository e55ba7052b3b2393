import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload } from 'jose';

/** What the gateway knows about a protected tenant's tokens. */
export interface TokenExpectations {
  tenantId: string;
  /** Pinned issuer (the tenant's authorization server). */
  issuer: string;
  /** The tenant's canonical MCP URL: the only accepted `aud`. */
  audience: string;
  jwksUri: string;
}

export interface VerifiedToken {
  subject: string;
  clientId: string;
  scopes: string[];
  /** The token's `groups` claim (tenant interceptors' CEL rules read it as `caller.groups`); absent when it has none. */
  groups?: string[];
  /** Epoch seconds. */
  exp: number;
}

/** Most groups read from a token, and longest group name kept: the claim is the issuer's, the copy per token is ours. */
const MAX_GROUPS = 64;
const MAX_GROUP_LENGTH = 256;

/** The string entries of a `groups` claim, bounded; undefined when the claim is absent or not an array. */
export function groupsOf(payload: JWTPayload): string[] | undefined {
  const raw = payload.groups;
  if (!Array.isArray(raw)) return undefined;
  return raw.filter((g): g is string => typeof g === 'string' && g.length <= MAX_GROUP_LENGTH).slice(0, MAX_GROUPS);
}

export type VerifyResult = { ok: true; token: VerifiedToken } | { ok: false; description: string };

export interface BearerVerifierOptions {
  /** Least time between JWKS refetches on an unknown `kid`, in ms. */
  jwksCooldownMs: number;
  /** How long a verified token is remembered (never past `exp`), in ms. */
  cacheMs: number;
  /** Most remembered tokens. */
  cacheMax?: number;
}

const ALGORITHMS = ['ES256'];

/**
 * Verifies tenant access tokens with jose: remote JWKS per issuer (cached, refetched on an
 * unknown `kid` after a cooldown), pinned issuer, audience = the tenant's MCP URL, ES256 only,
 * `typ: at+jwt`, and the `tid` claim. Proof-of-possession tokens (`cnf`) are refused because
 * the gateway does not check DPoP proofs. Verified tokens are cached briefly so the hot path
 * usually costs one map lookup.
 */
export class BearerVerifier {
  private readonly jwks = new Map<string, ReturnType<typeof createRemoteJWKSet>>();
  private readonly cache = new Map<string, { until: number; tenantId: string; token: VerifiedToken }>();
  private readonly cacheMax: number;

  constructor(private readonly options: BearerVerifierOptions) {
    this.cacheMax = options.cacheMax ?? 10_000;
  }

  /** A still-valid verification of this token for this tenant, without any await (the hot path). */
  cached(jwt: string, expect: TokenExpectations): VerifiedToken | undefined {
    const hit = this.cache.get(jwt);
    if (!hit) return undefined;
    if (hit.until > Date.now() && hit.tenantId === expect.tenantId) return hit.token;
    if (hit.until <= Date.now()) this.cache.delete(jwt);
    return undefined;
  }

  async verify(jwt: string, expect: TokenExpectations): Promise<VerifyResult> {
    const now = Date.now();
    const cached = this.cached(jwt, expect);
    if (cached) return { ok: true, token: cached };
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(jwt, this.keySet(expect.jwksUri), {
        issuer: expect.issuer,
        audience: expect.audience,
        algorithms: ALGORITHMS,
        typ: 'at+jwt',
        requiredClaims: ['exp', 'iat', 'sub', 'client_id'],
      }));
    } catch (err) {
      return { ok: false, description: describe(err) };
    }
    if (payload.tid !== expect.tenantId) return { ok: false, description: 'token was issued for another tenant' };
    if (payload.cnf !== undefined) return { ok: false, description: 'sender-constrained tokens are not accepted here' };
    if (Array.isArray(payload.aud) && payload.aud.length !== 1) return { ok: false, description: 'token must have exactly one audience' };
    const groups = groupsOf(payload);
    const token: VerifiedToken = {
      subject: String(payload.sub),
      clientId: String(payload.client_id),
      scopes: typeof payload.scope === 'string' ? payload.scope.split(' ').filter(Boolean) : [],
      ...(groups ? { groups } : {}),
      exp: Number(payload.exp),
    };
    if (this.options.cacheMs > 0) {
      if (this.cache.size >= this.cacheMax) this.cache.delete(this.cache.keys().next().value as string);
      this.cache.set(jwt, { until: Math.min(now + this.options.cacheMs, token.exp * 1000), tenantId: expect.tenantId, token });
    }
    return { ok: true, token };
  }

  private keySet(uri: string): ReturnType<typeof createRemoteJWKSet> {
    let set = this.jwks.get(uri);
    if (!set) {
      set = createRemoteJWKSet(new URL(uri), {
        cooldownDuration: this.options.jwksCooldownMs,
        cacheMaxAge: 10 * 60_000,
        timeoutDuration: 5_000,
      });
      this.jwks.set(uri, set);
    }
    return set;
  }
}

function describe(err: unknown): string {
  if (err instanceof errors.JWTExpired) return 'token expired';
  if (err instanceof errors.JWTClaimValidationFailed) return `token ${err.claim} claim is not valid here`;
  if (err instanceof errors.JWKSNoMatchingKey) return 'token signed by an unknown key';
  if (err instanceof errors.JOSEAlgNotAllowed) return 'token algorithm not allowed';
  if (err instanceof errors.JWSSignatureVerificationFailed) return 'token signature invalid';
  if (err instanceof errors.JWKSTimeout || err instanceof errors.JOSEError) return 'token could not be verified';
  return 'token could not be verified';
}
