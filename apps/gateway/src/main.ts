// Telemetry first: the http instrumentation must be in place before Fastify is loaded.
import './instrument';
import { ConfigError, loadGatewayConfig } from './config/config';
import { createGateway } from './create-gateway';

async function main(): Promise<void> {
  const config = loadGatewayConfig();
  const app = await createGateway(config);
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
