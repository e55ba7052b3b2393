import { startPackagedServer, type ReferenceServer } from './start-packaged-server';

/**
 * The TypeScript SDK's own example server (`examples/server/simpleStreamableHttp.js`, shipped in
 * `@modelcontextprotocol/sdk`): stateful, with tasks, form elicitation and logging during calls.
 */
export function startSdkExampleServer(port?: number): Promise<ReferenceServer> {
  return startPackagedServer(
    { package: '@modelcontextprotocol/sdk', script: 'dist/cjs/examples/server/simpleStreamableHttp.js', args: [], portEnv: 'MCP_PORT' },
    port,
  );
}
