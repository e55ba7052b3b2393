// Telemetry first: http and ioredis must be instrumented before they load.
import './instrument';
import { GracefulShutdown, ShutdownGate } from '@switchboard/mcp-http';
import { createLogger } from '@switchboard/telemetry';
import { ChainRuntime } from './chain-runtime';
import { devnetChain } from './chains/devnet-chain';
import { ConfigError, loadConfig, type ChainReaderConfig } from './config';
import { createChainReaderApp } from './create-app';
import { startDevnet, type Devnet } from './devnet/start-devnet';

async function main(): Promise<void> {
  let config: ChainReaderConfig;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  const logger = createLogger({ service: 'chain-reader', level: process.env.LOG_LEVEL ?? 'info' });
  let devnet: Devnet | undefined;
  if (config.useDevnet) {
    // No chain has an RPC URL: run the local devnet so the tools have something real to read.
    logger.warn('no CHAIN_RPC_URLS_<SLUG> / CHAINS_FILE configured; starting the local anvil devnet (development only)');
    const t0 = performance.now();
    devnet = await startDevnet({ port: 0, stateDir: config.devnetStateDir });
    config.chains['devnet'] = devnetChain(devnet, [devnet.rpcUrl]);
    const how = devnet.reusedState
      ? `loaded from the saved state in ${config.devnetStateDir}`
      : config.devnetStateDir
        ? `deployed and saved to ${config.devnetStateDir}`
        : 'deployed';
    logger.info(`devnet ${how} in ${Math.round(performance.now() - t0)} ms`);
    logger.info(
      `devnet at ${devnet.rpcUrl}; pools ${Object.entries(devnet.addresses.pools)
        .map(([k, p]) => `${k}=${p.address}`)
        .join(' ')}`,
    );
  }
  const runtime = new ChainRuntime({ ...config, chains: config.chains });
  const shutdownGate = new ShutdownGate();
  const app = await createChainReaderApp(runtime, shutdownGate);
  // SIGTERM: readiness 503 and `Connection: close` first, listener closed, in-flight reads finish (bounded), then the devnet stops.
  const shutdown = new GracefulShutdown(app.getHttpServer(), {
    readinessPaths: ['/readyz', '/healthz'],
    drainDelayMs: Number(process.env.SHUTDOWN_DRAIN_DELAY_MS ?? 0),
    timeoutMs: Number(process.env.SHUTDOWN_TIMEOUT_MS ?? 20_000),
    logger,
  });
  shutdownGate.attach(shutdown);
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    // Do not leave the devnet running when the port is taken.
    await runtime.close();
    await devnet?.stop();
    throw err;
  }
  const address = app.getHttpAdapter().getInstance().server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  logger.info(`MCP endpoint http://${config.host}:${port}/mcp (chains: ${runtime.registry.configuredSlugs.join(', ')})`);
  shutdown.exitOnSignals(async () => {
    await app.close();
    await runtime.close();
    await devnet?.stop();
  });
}

main().catch((err: unknown) => {
  console.error('chain-reader failed to start:', err);
  process.exit(1);
});
