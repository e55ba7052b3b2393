import type { ChainConfig } from '../chains/chain-config';
import { CHAIN_ERROR_CODES, chainError } from '../errors';
import { ChainRpc, type ChainRpcOptions } from './chain-rpc';

/** The configured chains by slug, each with one shared ChainRpc (so batches span requests). */
export class ChainRegistry {
  private readonly rpcs = new Map<string, ChainRpc>();

  constructor(
    readonly chains: Record<string, ChainConfig>,
    private readonly options: ChainRpcOptions,
  ) {}

  /** Slugs that have at least one RPC URL. */
  get configuredSlugs(): string[] {
    return Object.values(this.chains)
      .filter((c) => c.rpcUrls.length > 0)
      .map((c) => c.slug);
  }

  /**
   * The read path of a chain.
   * @throws CR_BAD_INPUT / CR_UNKNOWN_CHAIN / CR_CHAIN_NOT_CONFIGURED as ToolErrors naming `chain`.
   */
  get(slug: unknown): ChainRpc {
    if (typeof slug !== 'string' || slug.length === 0) {
      throw chainError(CHAIN_ERROR_CODES.BAD_INPUT, 'chain: required, one of ' + Object.keys(this.chains).join(', '), { field: 'chain' });
    }
    const config = this.chains[slug];
    if (!config) {
      throw chainError(
        CHAIN_ERROR_CODES.UNKNOWN_CHAIN,
        `chain: unknown chain "${slug.slice(0, 40)}"; known chains: ${Object.keys(this.chains).join(', ')}`,
        { field: 'chain' },
      );
    }
    if (config.rpcUrls.length === 0) {
      throw chainError(
        CHAIN_ERROR_CODES.CHAIN_NOT_CONFIGURED,
        `chain: "${slug}" has no RPC endpoint configured (set CHAIN_RPC_URLS_${slug.toUpperCase().replace(/-/g, '_')}); configured: ${this.configuredSlugs.join(', ') || 'none'}`,
        { field: 'chain' },
      );
    }
    let rpc = this.rpcs.get(slug);
    if (!rpc) {
      rpc = new ChainRpc(config, this.options);
      this.rpcs.set(slug, rpc);
    }
    return rpc;
  }
}
