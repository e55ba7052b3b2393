export * from './tenant-auth-schema';
export * from './canonical-mcp-url';
