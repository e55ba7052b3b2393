export * from './mcp-target';
export * from './register-mcp-routes';
