export * from './mcp-target';
export * from './register-mcp-routes';
export { hostnameOf, originAllowed, hostAllowed } from './origin-policy';
export * from './graceful-shutdown';
