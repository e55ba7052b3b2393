import { generateKeyPairSync, randomUUID } from 'node:crypto';
import type { JsonWebKey } from 'node:crypto';
import type { Pool } from 'pg';
import type { SecretBox } from '@switchboard/secret-box';

/** A private ES256 JWK as oidc-provider consumes it. */
export type PrivateJwk = JsonWebKey & { kid: string; alg: 'ES256'; use: 'sig' };

/**
 * Per-tenant ES256 signing keys, sealed at rest. The newest activated key signs; every key
 * not yet retired stays in the JWKS, so tokens signed before a rotation keep verifying until
 * the old key is retired (retire only after the longest access-token lifetime plus the
 * gateways' JWKS cache age).
 */
export class SigningKeys {
  private readonly table: string;

  constructor(
    private readonly pool: Pool,
    schema: string,
    private readonly box: SecretBox,
  ) {
    this.table = `"${schema}".signing_key`;
  }

  /** Published keys, the signing key first; creates the tenant's first key when it has none. */
  async published(tenantId: string): Promise<PrivateJwk[]> {
    let keys = await this.load(tenantId);
    if (keys.length === 0) {
      await this.insert(tenantId);
      keys = await this.load(tenantId);
    }
    return keys;
  }

  /** Adds a new key and makes it the signing key; previous keys stay published. Returns its kid. */
  async rotate(tenantId: string): Promise<string> {
    return this.insert(tenantId);
  }

  /** Removes a key from the JWKS: tokens it signed stop verifying once gateways refresh. */
  async retire(tenantId: string, kid: string): Promise<boolean> {
    const res = await this.pool.query(
      `UPDATE ${this.table} SET retired_at = now() WHERE tenant_id = $1 AND kid = $2 AND retired_at IS NULL`,
      [tenantId, kid],
    );
    return res.rowCount === 1;
  }

  private async load(tenantId: string): Promise<PrivateJwk[]> {
    const { rows } = await this.pool.query<{ kid: string; private_jwk: string }>(
      `SELECT kid, private_jwk FROM ${this.table} WHERE tenant_id = $1 AND retired_at IS NULL ORDER BY activated_at DESC NULLS LAST, created_at DESC`,
      [tenantId],
    );
    return rows.map((r) => JSON.parse(this.box.open(r.private_jwk, this.aad(tenantId, r.kid))) as PrivateJwk);
  }

  private async insert(tenantId: string): Promise<string> {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const kid = randomUUID();
    const jwk: PrivateJwk = { ...privateKey.export({ format: 'jwk' }), kid, alg: 'ES256', use: 'sig' };
    await this.pool.query(`INSERT INTO ${this.table} (tenant_id, kid, private_jwk, activated_at) VALUES ($1, $2, $3, clock_timestamp())`, [
      tenantId,
      kid,
      this.box.seal(JSON.stringify(jwk), this.aad(tenantId, kid)),
    ]);
    return kid;
  }

  private aad(tenantId: string, kid: string): string {
    return `signing-key:${tenantId}:${kid}`;
  }
}
