import { readFileSync } from 'node:fs';
import { redisUrlSchema } from '@switchboard/redis-connection';
import { deploymentMode, SWITCHBOARD_ENVS, type SwitchboardEnv } from '@switchboard/secret-box';
import { getAddress, isAddress } from 'viem';
import { z } from 'zod';
import type { ChainConfig } from './chains/chain-config';
import { defaultChains } from './chains/default-chains';

/** The chain-reader's whole configuration, read once at boot. */
export interface ChainReaderConfig {
  port: number;
  host: string;
  /** The mode in force: SWITCHBOARD_ENV, or the default for CHAIN_READER_HOST (`deploymentMode`). */
  switchboardEnv: SwitchboardEnv;
  redisUrl: string;
  /** Prefix of every Redis key and BullMQ queue this app owns. */
  redisPrefix: string;
  /** Chains by slug; a chain with no `rpcUrls` answers "not configured". */
  chains: Record<string, ChainConfig>;
  /** True when no chain has an RPC URL: `main.ts` then starts the devnet. */
  useDevnet: boolean;
  /** Where the devnet saves/loads its anvil state (`npm start` sets `.data/chain-devnet`); unset = deploy every start. */
  devnetStateDir: string | undefined;
  /** Multicall3 batching: idle gap, upper bound on the window, bytes per aggregate3 (see AdaptiveBatcher). */
  batch: { wait: number; maxWait: number; batchSize: number };
  /**
   * The freshness model (README "Freshness"): every answer is read at, and cached under, a
   * concrete block; `latest` means the head fetched at most `headTtlMs` ago. The TTLs below
   * only bound how long entries are kept, never which block an answer is for.
   */
  cache: {
    /** How long a fetched head block number is reused: answers at `latest` lag the node by at most this. */
    headTtlMs: number;
    /** Kept-for of read_contract_state / get_contract_info answers asked at `latest` (keyed by the head block). */
    latestTtlSec: number;
    /** Kept-for of answers at an explicit block number. */
    blockTtlSec: number;
    /** Kept-for of pool panels (keyed by the head block). */
    panelTtlSec: number;
    /** Immutable facts: token metadata, pool constants, bytecode analysis. */
    immutableTtlSec: number;
  };
}

const intFromEnv = (def: number, min: number, max: number) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return def;
      const n = Number(v);
      if (!Number.isInteger(n) || n < min || n > max) {
        ctx.addIssue({ code: 'custom', message: `must be an integer in ${min}..${max}` });
        return z.NEVER;
      }
      return n;
    });

/** Each variable, its default and meaning. */
const envSchema = z.object({
  /** HTTP port of the MCP endpoint (0 = any free port). */
  CHAIN_READER_PORT: intFromEnv(4200, 0, 65535),
  /** Listen address; loopback by default. */
  CHAIN_READER_HOST: z.string().min(1).default('127.0.0.1'),
  /**
   * `production` refuses the local devnet (no chain with an RPC URL); `development` starts it.
   * Unset: development on a loopback CHAIN_READER_HOST, production on any other address.
   */
  SWITCHBOARD_ENV: z.preprocess((v) => (v === '' ? undefined : v), z.enum(SWITCHBOARD_ENVS).optional()),
  /** Redis for the cache and BullMQ; when it is down the tools still answer (direct reads). */
  REDIS_URL: redisUrlSchema().default('redis://127.0.0.1:6379'),
  /** Key prefix for this app's Redis keys and queues. */
  CHAIN_READER_REDIS_PREFIX: z.string().min(1).default('chain-reader'),
  /** JSON file: `{ "<slug>": { "rpcUrls": [...], ...any ChainConfig field } }`, merged over the defaults. */
  CHAINS_FILE: z.string().optional(),
  /** Per-endpoint RPC timeout in ms for chains whose config does not set one. */
  CHAIN_RPC_TIMEOUT_MS: intFromEnv(4_000, 100, 60_000),
  /** Idle gap in ms: a Multicall3 batch is sent this long after the last read joined it (a lone read waits this long). */
  CHAIN_READER_BATCH_WAIT_MS: intFromEnv(16, 0, 1_000),
  /** Upper bound in ms on one batch's window under load, from its first read (= BATCH_WAIT_MS for a fixed window). */
  CHAIN_READER_BATCH_MAX_WAIT_MS: intFromEnv(500, 0, 5_000),
  /** How long a fetched head block number is reused; `latest` answers lag the node by at most this. */
  CHAIN_READER_HEAD_TTL_MS: intFromEnv(1_000, 0, 60_000),
  /** Most calldata bytes per aggregate3 call. */
  CHAIN_READER_BATCH_BYTES: intFromEnv(16_384, 256, 1_048_576),
  /** Directory for the devnet's saved anvil state (reused while the deploy is unchanged). */
  CHAIN_READER_DEVNET_STATE_DIR: z.string().min(1).optional(),
  CHAIN_READER_LATEST_TTL_SEC: intFromEnv(60, 1, 86_400),
  CHAIN_READER_PANEL_TTL_SEC: intFromEnv(15, 1, 86_400),
});

const rpcUrlList = z.array(z.string().url()).min(1);

function parseUrls(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Thrown with every problem found, so one boot shows them all. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: string[]) {
    super(`invalid chain-reader configuration:\n  - ${problems.join('\n  - ')}`);
  }
}

function normalizeAddresses(chain: ChainConfig, problems: string[]): ChainConfig {
  const addr = (field: string, v: string): `0x${string}` => {
    if (!isAddress(v, { strict: false })) {
      problems.push(`chains.${chain.slug}.${field}: ${v} is not an address`);
      return '0x0000000000000000000000000000000000000000';
    }
    return getAddress(v);
  };
  return {
    ...chain,
    multicall3: addr('multicall3', chain.multicall3),
    uniswapV3Factory: chain.uniswapV3Factory ? addr('uniswapV3Factory', chain.uniswapV3Factory) : null,
    stablecoins: chain.stablecoins.map((s, i) => addr(`stablecoins[${i}]`, s)),
    feeds: chain.feeds.map((f, i) => ({ ...f, token: addr(`feeds[${i}].token`, f.token), feed: addr(`feeds[${i}].feed`, f.feed) })),
    anchorPools: chain.anchorPools.map((p, i) => ({
      ...p,
      token: addr(`anchorPools[${i}].token`, p.token),
      pool: addr(`anchorPools[${i}].pool`, p.pool),
      quote: addr(`anchorPools[${i}].quote`, p.quote),
    })),
  };
}

/**
 * Builds the validated config from an environment (default `process.env`).
 * @throws ConfigError listing every invalid variable.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): ChainReaderConfig {
  const problems: string[] = [];
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) problems.push(`${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(problems);
  }
  const e = parsed.data;
  const chains = defaultChains();
  for (const c of Object.values(chains)) c.rpcTimeoutMs = e.CHAIN_RPC_TIMEOUT_MS;

  if (e.CHAINS_FILE) mergeChainsFile(chains, e.CHAINS_FILE, e.CHAIN_RPC_TIMEOUT_MS, problems);
  applyRpcUrlVariables(chains, env, problems);

  for (const [slug, c] of Object.entries(chains)) {
    if (c.rpcUrls.length > 0 && !rpcUrlList.safeParse(c.rpcUrls).success) problems.push(`chains.${slug}.rpcUrls: must be http(s) URLs`);
    chains[slug] = normalizeAddresses(c, problems);
  }
  const mode = deploymentMode(e.SWITCHBOARD_ENV, { variable: 'CHAIN_READER_HOST', host: e.CHAIN_READER_HOST });
  const useDevnet = Object.values(chains).every((c) => c.rpcUrls.length === 0);
  // The devnet is a development stand-in: a production chain-reader answering from it would serve made-up chain state.
  if (useDevnet && mode.env === 'production')
    problems.push(
      `CHAIN_RPC_URLS_<SLUG> / CHAINS_FILE: no chain has an RPC URL, and the local devnet is a development default (${mode.reason})`,
    );
  if (problems.length > 0) throw new ConfigError(problems);

  return {
    port: e.CHAIN_READER_PORT,
    host: e.CHAIN_READER_HOST,
    switchboardEnv: mode.env,
    redisUrl: e.REDIS_URL,
    redisPrefix: e.CHAIN_READER_REDIS_PREFIX,
    chains,
    useDevnet,
    devnetStateDir: e.CHAIN_READER_DEVNET_STATE_DIR,
    batch: {
      wait: e.CHAIN_READER_BATCH_WAIT_MS,
      maxWait: Math.max(e.CHAIN_READER_BATCH_WAIT_MS, e.CHAIN_READER_BATCH_MAX_WAIT_MS),
      batchSize: e.CHAIN_READER_BATCH_BYTES,
    },
    cache: {
      headTtlMs: e.CHAIN_READER_HEAD_TTL_MS,
      latestTtlSec: e.CHAIN_READER_LATEST_TTL_SEC,
      blockTtlSec: 3_600,
      panelTtlSec: e.CHAIN_READER_PANEL_TTL_SEC,
      immutableTtlSec: 30 * 86_400,
    },
  };
}

/** Adds or overrides chains from CHAINS_FILE (a JSON object keyed by chain slug); what is wrong goes to `problems`. */
function mergeChainsFile(chains: Record<string, ChainConfig>, file: string, rpcTimeoutMs: number, problems: string[]): void {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new Error('must be a JSON object keyed by chain slug');
    for (const [slug, override] of Object.entries(parsed as Record<string, unknown>)) {
      if (!/^[a-z0-9-]{1,32}$/.test(slug)) {
        problems.push(`CHAINS_FILE: chain slug "${slug}" must match [a-z0-9-]{1,32}`);
        continue;
      }
      const base = chains[slug];
      const merged = { ...(base ?? {}), ...(override as Partial<ChainConfig>), slug } as ChainConfig;
      if (!base && (typeof merged.chainId !== 'number' || typeof merged.multicall3 !== 'string')) {
        problems.push(`CHAINS_FILE: new chain "${slug}" needs at least chainId and multicall3`);
        continue;
      }
      merged.stablecoins ??= [];
      merged.feeds ??= [];
      merged.anchorPools ??= [];
      merged.rpcUrls ??= [];
      merged.registeredAbis ??= {};
      merged.uniswapV3Factory ??= null;
      merged.name ??= slug;
      merged.rpcTimeoutMs ??= rpcTimeoutMs;
      merged.minRouteDepthUsd ??= 50_000;
      chains[slug] = merged;
    }
  } catch (err) {
    problems.push(`CHAINS_FILE: cannot read ${file}: ${(err as Error).message}`);
  }
}

/** CHAIN_RPC_URLS_<SLUG>: the RPC URLs of a known chain, comma-separated. */
function applyRpcUrlVariables(chains: Record<string, ChainConfig>, env: Record<string, string | undefined>, problems: string[]): void {
  for (const [key, value] of Object.entries(env)) {
    const m = /^CHAIN_RPC_URLS_([A-Z0-9_]+)$/.exec(key);
    if (!m || value === undefined) continue;
    const slug = m[1]!.toLowerCase().replace(/_/g, '-');
    const chain = chains[slug];
    if (!chain) {
      problems.push(`${key}: unknown chain "${slug}" (known: ${Object.keys(chains).join(', ')})`);
      continue;
    }
    const urls = rpcUrlList.safeParse(parseUrls(value));
    if (!urls.success) {
      problems.push(`${key}: must be a comma-separated list of http(s) URLs`);
      continue;
    }
    chain.rpcUrls = urls.data;
  }
}
