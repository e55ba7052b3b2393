/** AAD of a secret sealed inside a tenant document (`idp`, `connector:<server>`): binds the blob to its tenant and slot. */
export function tenantSecretAad(tenantId: string, slot: string): string {
  return `tenant-secret:${tenantId}:${slot}`;
}
