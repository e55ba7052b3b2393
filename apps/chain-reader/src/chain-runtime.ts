import { BytecodeAnalysisQueue } from './analysis/bytecode-analysis-queue';
import { ChainCache } from './cache/chain-cache';
import type { ChainConfig } from './chains/chain-config';
import type { ChainReaderConfig } from './config';
import { ChainRegistry } from './rpc/chain-registry';
import { ContractInfoService } from './services/contract-info.service';
import { ContractStateService } from './services/contract-state.service';
import { UniswapV3PoolService } from './services/uniswap-v3-pool.service';

/** What a ChainRuntime needs: the chains plus the Redis, batch and cache parts of the app config. */
export type ChainRuntimeOptions = Pick<ChainReaderConfig, 'redisUrl' | 'redisPrefix' | 'batch' | 'cache'> & {
  chains: Record<string, ChainConfig>;
};

/**
 * The chain-reader's services wired together: one ChainRpc per chain (shared by all requests,
 * so their reads batch together), the Redis cache and the bytecode-analysis queue.
 */
export class ChainRuntime {
  readonly registry: ChainRegistry;
  readonly cache: ChainCache;
  readonly analysis: BytecodeAnalysisQueue;
  readonly contractInfo: ContractInfoService;
  readonly contractState: ContractStateService;
  readonly pools: UniswapV3PoolService;

  constructor(options: ChainRuntimeOptions) {
    this.registry = new ChainRegistry(options.chains, { ...options.batch, headTtlMs: options.cache.headTtlMs });
    this.cache = new ChainCache({ redisUrl: options.redisUrl, prefix: options.redisPrefix });
    this.analysis = new BytecodeAnalysisQueue(this.cache, {
      redisUrl: options.redisUrl,
      prefix: `${options.redisPrefix}-bull`,
      queueName: 'bytecode-analysis',
      ttlSec: options.cache.immutableTtlSec,
    });
    this.contractInfo = new ContractInfoService(this.registry, this.cache, this.analysis, { latestTtlSec: options.cache.latestTtlSec });
    this.contractState = new ContractStateService(this.registry, this.cache, {
      latestTtlSec: options.cache.latestTtlSec,
      blockTtlSec: options.cache.blockTtlSec,
    });
    this.pools = new UniswapV3PoolService(this.registry, this.cache, {
      panelTtlSec: options.cache.panelTtlSec,
      immutableTtlSec: options.cache.immutableTtlSec,
    });
  }

  /** Stops queues and connections; `purge` also deletes this runtime's Redis keys and queue (tests). */
  async close(options: { purge?: boolean } = {}): Promise<void> {
    await this.analysis.close({ obliterate: options.purge });
    if (options.purge) await this.cache.clear().catch(() => undefined);
    await this.cache.close();
  }
}
