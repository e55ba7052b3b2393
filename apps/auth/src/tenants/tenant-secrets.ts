import { tenantSecretAad } from '@switchboard/catalog';
import { SecretBox } from '@switchboard/secret-box';

/**
 * Opens the secrets the registry sealed into tenant documents (the IdP client secret,
 * connector client secrets) with the registry's key (CATALOG_SECRETS_KEY). A blob that does
 * not open — another tenant's, another slot's, tampered — is treated as no secret at all and
 * reported once by the caller, never thrown into a sign-in.
 */
export class TenantSecrets {
  private readonly box: SecretBox;

  /** @param keys the registry's SECRETS_KEY ring (newest first). */
  constructor(keys: Buffer | Buffer[]) {
    this.box = new SecretBox(keys);
  }

  /** `slot`: `idp` or `connector:<server>`. */
  open(tenantId: string, slot: string, sealed: string | undefined): string | undefined {
    if (!sealed) return undefined;
    try {
      return this.box.open(sealed, tenantSecretAad(tenantId, slot));
    } catch {
      return undefined;
    }
  }
}
