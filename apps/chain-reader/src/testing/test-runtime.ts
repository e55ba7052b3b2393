import { randomUUID } from 'node:crypto';
import type { ChainConfig } from '../chains/chain-config';
import { ChainRuntime } from '../chain-runtime';

/** A ChainRuntime on the local Redis with a unique key prefix; `close()` purges its keys and queue. */
export function testRuntime(
  chains: Record<string, ChainConfig>,
  overrides: { redisUrl?: string; wait?: number; maxWait?: number; headTtlMs?: number } = {},
): ChainRuntime {
  return new ChainRuntime({
    chains,
    redisUrl: overrides.redisUrl ?? 'redis://127.0.0.1:6379',
    redisPrefix: `cr-test-${randomUUID().slice(0, 8)}`,
    batch: { wait: overrides.wait ?? 5, maxWait: overrides.maxWait ?? 50, batchSize: 16_384 },
    cache: { headTtlMs: overrides.headTtlMs ?? 200, latestTtlSec: 60, blockTtlSec: 3_600, panelTtlSec: 15, immutableTtlSec: 3_600 },
  });
}
