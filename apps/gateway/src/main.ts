// Telemetry first: the http instrumentation must be in place before Fastify is loaded.
import './instrument';
import { ConfigError, loadGatewayConfig } from './config/config';
import { GracefulShutdown } from '@switchboard/mcp-http';
import type { Logger } from 'pino';
import { createGateway } from './create-gateway';
import { GATEWAY_LOGGER } from './tokens';

async function main(): Promise<void> {
  const config = loadGatewayConfig();
  const app = await createGateway(config);
  // SIGTERM: readiness 503, `Connection: close` on every response, listener closed after the
  // drain delay, in-flight calls finish within the call timeout (UPSTREAM_TIMEOUT_MS + 5 s) plus a margin.
  const shutdown = new GracefulShutdown(app.getHttpServer(), {
    drainDelayMs: config.SHUTDOWN_DRAIN_DELAY_MS,
    timeoutMs: config.SHUTDOWN_TIMEOUT_MS ?? config.UPSTREAM_TIMEOUT_MS + 5_000 + 2_000,
    logger: app.get<Logger>(GATEWAY_LOGGER),
  });
  shutdown.exitOnSignals(() => app.close());
  await app.listen({ port: config.GATEWAY_PORT, host: config.GATEWAY_HOST });
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : config.GATEWAY_PORT;
  // The one line start scripts and benches wait for.
  process.stdout.write(`gateway listening on http://${config.GATEWAY_HOST}:${port}\n`);
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError) {
    process.stderr.write(`${err.message}\n`);
  } else {
    process.stderr.write(`gateway failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  }
  process.exit(1);
});
