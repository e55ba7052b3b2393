// Telemetry first: http and ioredis must be instrumented before they load.
import './instrument';
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
  let devnet: Devnet | undefined;
  if (config.useDevnet) {
    // No chain has an RPC URL: run the local devnet so the tools have something real to read.
    console.warn('chain-reader: no CHAIN_RPC_URLS_<SLUG> / CHAINS_FILE configured; starting the local anvil devnet (development only)');
    const t0 = performance.now();
    devnet = await startDevnet({ port: 0, stateDir: config.devnetStateDir });
    config.chains['devnet'] = devnetChain(devnet, [devnet.rpcUrl]);
    const how = devnet.reusedState ? `loaded from the saved state in ${config.devnetStateDir}` : config.devnetStateDir ? `deployed and saved to ${config.devnetStateDir}` : 'deployed';
    console.warn(`chain-reader: devnet ${how} in ${Math.round(performance.now() - t0)} ms`);
    console.warn(`chain-reader: devnet at ${devnet.rpcUrl}; pools ${Object.entries(devnet.addresses.pools).map(([k, p]) => `${k}=${p.address}`).join(' ')}`);
  }
  const runtime = new ChainRuntime({ ...config, chains: config.chains });
  const app = await createChainReaderApp(runtime);
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
  console.warn(`chain-reader: MCP endpoint http://${config.host}:${port}/mcp (chains: ${runtime.registry.configuredSlugs.join(', ')})`);

  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    await app.close();
    await runtime.close();
    await devnet?.stop();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

main().catch((err: unknown) => {
  console.error('chain-reader failed to start:', err);
  process.exit(1);
});
