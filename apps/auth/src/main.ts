// Telemetry first: http and pg must be instrumented before they load.
import './instrument';
import { loadAuthConfig } from './config';
import { GracefulShutdown, ShutdownGate, listenAndAnnounce, runServiceMain } from '@switchboard/mcp-http';
import { createAuthApp } from './create-auth-app';

async function main(): Promise<void> {
  const config = loadAuthConfig();
  const shutdownGate = new ShutdownGate();
  const { app, services } = await createAuthApp(config, { shutdownGate });
  // SIGTERM: readiness 503 and `Connection: close` first, listener closed, in-flight sign-ins and token requests finish (bounded).
  const shutdown = new GracefulShutdown(app.getHttpServer(), {
    drainDelayMs: Number(process.env.SHUTDOWN_DRAIN_DELAY_MS ?? 0),
    timeoutMs: Number(process.env.SHUTDOWN_TIMEOUT_MS ?? 20_000),
    logger: services.logger,
  });
  shutdownGate.attach(shutdown);
  shutdown.exitOnSignals(() => app.close());
  await listenAndAnnounce(app, 'auth', config.AUTH_HOST, config.AUTH_PORT);
}

runServiceMain('auth', main);
