import { startPackagedServer, type ReferenceServer } from './start-packaged-server';

/**
 * The official reference server `@modelcontextprotocol/server-everything` (a dev dependency,
 * written by nobody here) in its Streamable HTTP mode: stateful sessions, and the tools it
 * registers only for clients declaring sampling, elicitation, roots or tasks.
 */
export function startEverythingServer(port?: number): Promise<ReferenceServer> {
  return startPackagedServer(
    { package: '@modelcontextprotocol/server-everything', script: 'dist/index.js', args: ['streamableHttp'], portEnv: 'PORT' },
    port,
  );
}
