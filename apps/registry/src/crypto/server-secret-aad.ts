/** AAD of a server's stored secret in the registry's own tables. */
export const serverSecretAad = (tenantId: string, serverId: string): string => `server-secret:${tenantId}:${serverId}`;
