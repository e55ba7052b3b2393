// Telemetry first: http and pg must be instrumented before they load.
import './instrument';
import { ConfigError, loadAuthConfig } from './config';
import { GracefulShutdown } from '@switchboard/mcp-http';
import { createAuthApp } from './create-auth-app';

async function main(): Promise<void> {
  const config = loadAuthConfig();
  const { app, services } = await createAuthApp(config);
  // SIGTERM: readiness 503 and `Connection: close` first, listener closed, in-flight sign-ins and token requests finish (bounded).
  const shutdown = new GracefulShutdown(app.getHttpServer(), { drainDelayMs: Number(process.env.SHUTDOWN_DRAIN_DELAY_MS ?? 0), timeoutMs: Number(process.env.SHUTDOWN_TIMEOUT_MS ?? 20_000), logger: services.logger });
  shutdown.exitOnSignals(() => app.close());
  await app.listen({ port: config.AUTH_PORT, host: config.AUTH_HOST });
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : config.AUTH_PORT;
  // The one line start scripts wait for.
  process.stdout.write(`auth listening on http://${config.AUTH_HOST}:${port}\n`);
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError) {
    process.stderr.write(`${err.message}\n`);
  } else {
    process.stderr.write(`auth failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  }
  process.exit(1);
});
