/** AAD of a server's stored secret in the registry's own tables. */
export const serverSecretAad = (tenantId: string, serverId: string): string => `server-secret:${tenantId}:${serverId}`;

/** AAD of a tenant's sealed audit-export secret access key: a blob copied to another tenant does not open. */
export const auditExportSecretAad = (tenantId: string): string => `audit-export-secret:${tenantId}`;

/** AAD of a webhook subscription's sealed secrets: a sealed value copied to another row or tenant does not open. */
export const webhookSecretAad = (tenantId: string, subscriptionId: string): string => `webhook-secret:${tenantId}:${subscriptionId}`;
