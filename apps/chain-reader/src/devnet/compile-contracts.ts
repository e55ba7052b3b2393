import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Abi, Hex } from 'viem';
import { DEVNET_CONTRACTS_SOURCE } from './contracts-source';

/** One compiled contract: ABI plus creation bytecode. */
export interface CompiledContract {
  abi: Abi;
  bytecode: Hex;
}

const SOLC_VERSION = '0.8.37';
/** apps/chain-reader/.cache, the same from src/devnet (jest) and dist/devnet (built app). */
const CACHE_DIR = path.resolve(__dirname, '../../.cache');

interface SolcOutput {
  errors?: { severity: string; formattedMessage: string }[];
  contracts?: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
}

/**
 * Compiles the devnet Solidity with solcjs (`evmVersion: paris`, optimizer 200). The output is
 * cached under `.cache/` keyed by source + compiler hash, because loading solc's wasm alone
 * costs ~1 s and every test file boots a devnet.
 */
export async function compileDevnetContracts(): Promise<Record<string, CompiledContract>> {
  const hash = createHash('sha256').update(SOLC_VERSION).update(DEVNET_CONTRACTS_SOURCE).digest('hex').slice(0, 16);
  const file = path.join(CACHE_DIR, `devnet-contracts-${hash}.json`);
  try {
    return JSON.parse(await readFile(file, 'utf8')) as Record<string, CompiledContract>;
  } catch {
    // not cached yet: compile below
  }
  // Loaded lazily: only needed on a cache miss.
  const solc = (await import('solc')).default;
  const input = {
    language: 'Solidity',
    sources: { 'Devnet.sol': { content: DEVNET_CONTRACTS_SOURCE } },
    settings: {
      evmVersion: 'paris',
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(`devnet contracts failed to compile:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
  const result: Record<string, CompiledContract> = {};
  for (const [name, c] of Object.entries(output.contracts?.['Devnet.sol'] ?? {})) {
    result[name] = { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
  }
  await mkdir(CACHE_DIR, { recursive: true });
  // Write-then-rename so parallel jest workers never read a half-written file.
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify(result));
  await rename(tmp, file);
  return result;
}
