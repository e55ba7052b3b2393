// Telemetry first: the http instrumentation must be in place before Fastify is loaded.
import './instrument';
import { loadGatewayConfig } from './config/config';
import { GracefulShutdown, listenAndAnnounce, runServiceMain } from '@switchboard/mcp-http';
import type { Logger } from 'pino';
import { createGateway } from './create-gateway';
import { FrontDoor } from './edge-server';
import { GATEWAY_LOGGER } from './tokens';

async function main(): Promise<void> {
  const config = loadGatewayConfig();
  const door = new FrontDoor();
  const app = await createGateway(config, { door });
  // SIGTERM: readiness 503, `Connection: close` on every response, listener closed after the
  // drain delay, in-flight calls finish within the call timeout (UPSTREAM_TIMEOUT_MS + 5 s) plus a margin.
  const shutdown = new GracefulShutdown(app.getHttpServer(), {
    drainDelayMs: config.SHUTDOWN_DRAIN_DELAY_MS,
    timeoutMs: config.SHUTDOWN_TIMEOUT_MS ?? config.UPSTREAM_TIMEOUT_MS + 5_000 + 2_000,
    logger: app.get<Logger>(GATEWAY_LOGGER),
  });
  door.drainWith(shutdown);
  shutdown.exitOnSignals(() => app.close());
  await listenAndAnnounce(app, 'gateway', config.GATEWAY_HOST, config.GATEWAY_PORT);
}

runServiceMain('gateway', main);
