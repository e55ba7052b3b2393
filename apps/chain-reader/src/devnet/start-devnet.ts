import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { createPublicClient, http, type Abi, type Hex } from 'viem';
import { compileDevnetContracts } from './compile-contracts';
import { DEVNET_CHAIN_ID, seedDevnet, viemMulticall3CreationCode, type DevnetAddresses } from './seed-devnet';

export { DEV_KEY, MULTICALL3_ADDRESS, type DevnetAddresses, type DevnetPool } from './seed-devnet';

export interface Devnet {
  rpcUrl: string;
  /** True when the chain was loaded from a saved state (`stateDir`) instead of deployed. */
  reusedState: boolean;
  chainId: number;
  addresses: DevnetAddresses;
  /** ABIs of the devnet's own contracts, by contract name. */
  abis: Record<string, Abi>;
  stop(): Promise<void>;
}

export interface StartDevnetOptions {
  /** 0 (default) lets the OS pick a free port. */
  port?: number;
  /** Milliseconds to wait for anvil to listen. Default 15 s. */
  readyTimeoutMs?: number;
  /**
   * Directory for a saved devnet (anvil state dump + addresses). When set, a state saved by an
   * identical deploy (same contracts, compiler output, deploy script, Uniswap artefacts, Multicall3
   * code and anvil version) is loaded with `--load-state` instead of redeploying; otherwise the
   * devnet is deployed and its state saved there. Unset (tests): always deploy.
   */
  stateDir?: string;
}

interface SavedDevnet {
  fingerprint: string;
  addresses: DevnetAddresses;
}

function anvilBinary(): string {
  const pkg = require.resolve(`@foundry-rs/anvil-${process.platform}-${process.arch === 'x64' ? 'amd64' : process.arch}/package.json`);
  return path.join(path.dirname(pkg), 'bin', 'anvil');
}

function spawnAnvil(port: number, timeoutMs: number, loadState?: string): Promise<{ child: ChildProcess; url: string }> {
  // Spawned directly (not via the npm wrapper) so the pid we stop is anvil itself.
  const args = [
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--chain-id',
    String(DEVNET_CHAIN_ID),
    ...(loadState ? ['--load-state', loadState] : []),
  ];
  const child = spawn(anvilBinary(), args, {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`anvil did not listen within ${timeoutMs} ms: ${out.slice(-500)}`));
    }, timeoutMs);
    const onData = (chunk: Buffer): void => {
      if (out.length < 64_000) out += chunk.toString();
      const m = /Listening on ([\d.]+):(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        // Keep draining so anvil never blocks on a full pipe.
        child.stdout?.removeListener('data', onData);
        child.stdout?.resume();
        resolve({ child, url: `http://${m[1]}:${m[2]}` });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (c: Buffer) => {
      if (out.length < 64_000) out += c.toString();
    });
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`anvil exited with ${code}: ${out.slice(-500)}`));
    });
  });
}

/**
 * Starts anvil and seeds it: Multicall3 at its canonical address, dev ERC-20s (6 and 18
 * decimals, one with bytes32 name/symbol), a Uniswap V3 factory and four pools from
 * `@uniswap/v3-core` with liquidity and one swap, an ETH/USD feed, an ERC-721, proxies.
 */
export async function startDevnet(options: StartDevnetOptions = {}): Promise<Devnet> {
  const compiled = await compileDevnetContracts();
  const abis: Record<string, Abi> = {};
  for (const [name, c] of Object.entries(compiled)) abis[name] = c.abi;
  const fingerprint = options.stateDir ? devnetFingerprint(compiled) : undefined;
  const saved = options.stateDir && fingerprint ? await readSaved(options.stateDir, fingerprint) : undefined;
  const { child, url } = await spawnAnvil(options.port ?? 0, options.readyTimeoutMs ?? 15_000, saved?.stateFile);
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    if (child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  };
  try {
    if (saved && (await looksSeeded(url, saved.addresses))) {
      return { rpcUrl: url, reusedState: true, chainId: DEVNET_CHAIN_ID, addresses: saved.addresses, abis, stop };
    }
    if (saved) {
      // The saved state did not load as expected: drop it and deploy on a clean node.
      await stop();
      await rm(saved.stateFile.replace(/\.state\.json$/, '.json'), { force: true });
      return startDevnet(options);
    }
    const addresses = await seedDevnet(url, compiled);
    if (options.stateDir && fingerprint) await saveState(url, options.stateDir, fingerprint, addresses);
    return { rpcUrl: url, reusedState: false, chainId: DEVNET_CHAIN_ID, addresses, abis, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * Identity of a deployed devnet: everything that decides what `seedDevnet` puts on chain. Any change
 * (contracts, compiler output, this deploy script, the Uniswap artefacts, viem's Multicall3,
 * the anvil build) gives a new fingerprint, so a stale saved state is never loaded.
 */
function devnetFingerprint(compiled: Record<string, { abi: Abi; bytecode: Hex }>): string {
  const h = createHash('sha256');
  h.update(JSON.stringify(compiled));
  h.update(readFileSync(__filename));
  h.update(readFileSync(path.join(__dirname, `seed-devnet${path.extname(__filename)}`)));
  h.update(readFileSync(require.resolve('@uniswap/v3-core/artifacts/contracts/UniswapV3Factory.sol/UniswapV3Factory.json')));
  h.update(viemMulticall3CreationCode());
  h.update(readFileSync(path.join(path.dirname(anvilBinary()), '..', 'package.json')));
  return h.digest('hex').slice(0, 16);
}

async function readSaved(dir: string, fingerprint: string): Promise<(SavedDevnet & { stateFile: string }) | undefined> {
  const meta = path.join(dir, `devnet-${fingerprint}.json`);
  const stateFile = path.join(dir, `devnet-${fingerprint}.state.json`);
  try {
    const saved = JSON.parse(await readFile(meta, 'utf8')) as SavedDevnet;
    await readFile(stateFile, { flag: 'r' }).then((b) => {
      if (b.length === 0) throw new Error('empty state');
    });
    return saved.fingerprint === fingerprint ? { ...saved, stateFile } : undefined;
  } catch {
    return undefined;
  }
}

async function saveState(url: string, dir: string, fingerprint: string, addresses: DevnetAddresses): Promise<void> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_dumpState', params: [] }),
  });
  const body = (await res.json()) as { result?: Hex };
  if (!body.result) return;
  // anvil_dumpState answers gzipped JSON as hex; --load-state reads the JSON.
  const state = gunzipSync(Buffer.from(body.result.slice(2), 'hex'));
  await mkdir(dir, { recursive: true });
  // Older fingerprints are stale by definition: drop them.
  for (const f of await readdir(dir))
    if (/^devnet-[0-9a-f]{16}(\.state)?\.json$/.test(f) && !f.includes(fingerprint)) await rm(path.join(dir, f), { force: true });
  const write = async (file: string, data: string | Buffer): Promise<void> => {
    const tmp = `${file}.${process.pid}.tmp`;
    await writeFile(tmp, data);
    await rename(tmp, file);
  };
  // State first, metadata last: the metadata file's presence means the pair is complete.
  await write(path.join(dir, `devnet-${fingerprint}.state.json`), state);
  await write(path.join(dir, `devnet-${fingerprint}.json`), JSON.stringify({ fingerprint, addresses } satisfies SavedDevnet));
}

/** A loaded state is usable when Multicall3 and the main pool have code. */
async function looksSeeded(url: string, addresses: DevnetAddresses): Promise<boolean> {
  const client = createPublicClient({ transport: http(url) });
  try {
    const [mc, pool] = await Promise.all([
      client.getCode({ address: addresses.multicall3 }),
      client.getCode({ address: addresses.pools.wethUsdc.address }),
    ]);
    return (mc?.length ?? 0) > 2 && (pool?.length ?? 0) > 2;
  } catch {
    return false;
  }
}
