import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig } from './config';

describe('loadConfig', () => {
  it('defaults to port 4200 on loopback and the devnet when no RPC URL is configured', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ port: 4200, host: '127.0.0.1', redisUrl: 'redis://127.0.0.1:6379', useDevnet: true });
    expect(Object.keys(c.chains).sort()).toEqual(['arbitrum', 'base', 'eth', 'optimism', 'polygon']);
    expect(c.chains['base']!.uniswapV3Factory).toBe('0x33128a8fC17869897dcE68Ed026d694621f6FDfD');
  });

  it('refuses the devnet when it runs as production: bound to a non-loopback address without SWITCHBOARD_ENV, or SWITCHBOARD_ENV=production', () => {
    for (const env of [{ CHAIN_READER_HOST: '0.0.0.0' }, { SWITCHBOARD_ENV: 'production' }]) {
      expect(() => loadConfig(env)).toThrow(
        /CHAIN_RPC_URLS_<SLUG> \/ CHAINS_FILE: no chain has an RPC URL, and the local devnet is a development default/,
      );
    }
    expect(loadConfig({ CHAIN_READER_HOST: '0.0.0.0', SWITCHBOARD_ENV: 'development' })).toMatchObject({
      useDevnet: true,
      switchboardEnv: 'development',
    });
    expect(loadConfig({ CHAIN_READER_HOST: '0.0.0.0', CHAIN_RPC_URLS_ETH: 'https://eth.example' })).toMatchObject({
      useDevnet: false,
      switchboardEnv: 'production',
    });
  });

  it('takes per-chain RPC URLs in order from CHAIN_RPC_URLS_<SLUG>', () => {
    const c = loadConfig({ CHAIN_RPC_URLS_ETH: 'http://127.0.0.1:1, http://127.0.0.1:2', CHAIN_RPC_TIMEOUT_MS: '900' });
    expect(c.chains['eth']).toMatchObject({ rpcUrls: ['http://127.0.0.1:1', 'http://127.0.0.1:2'], rpcTimeoutMs: 900 });
    expect(c.useDevnet).toBe(false);
  });

  it('merges a CHAINS_FILE over the defaults and accepts new chains', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'cr-config-'));
    const file = path.join(dir, 'chains.json');
    writeFileSync(
      file,
      JSON.stringify({
        base: { rpcUrls: ['http://127.0.0.1:9'] },
        mychain: { chainId: 999, multicall3: '0xca11bde05977b3631167028862be2a173976ca11', rpcUrls: ['http://127.0.0.1:8'] },
      }),
    );
    const c = loadConfig({ CHAINS_FILE: file });
    expect(c.chains['base']!.rpcUrls).toEqual(['http://127.0.0.1:9']);
    expect(c.chains['mychain']).toMatchObject({ chainId: 999, multicall3: '0xcA11bde05977b3631167028862bE2a173976CA11', stablecoins: [] });
  });

  it('lists every problem at once', () => {
    let err: unknown;
    try {
      loadConfig({ CHAIN_READER_PORT: 'abc', REDIS_URL: 'http://x' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).problems).toEqual([
      expect.stringMatching(/^CHAIN_READER_PORT: must be an integer/),
      expect.stringMatching(/^REDIS_URL: /),
    ]);
    // Sentinel and Cluster URLs are accepted; a malformed one is refused saying why.
    expect(loadConfig({ REDIS_URL: 'redis-sentinel://s-0:26379,s-1:26379/mymaster' }).redisUrl).toBe(
      'redis-sentinel://s-0:26379,s-1:26379/mymaster',
    );
    expect(loadConfig({ REDIS_URL: 'redis-cluster://n-0:6379,n-1:6379' }).redisUrl).toBe('redis-cluster://n-0:6379,n-1:6379');
    expect(() => loadConfig({ REDIS_URL: 'redis-sentinel://s-0:26379' })).toThrow(/REDIS_URL: redis-sentinel:\/\/ needs the master name/);
    expect(() => loadConfig({ CHAIN_RPC_URLS_SOLANA: 'http://127.0.0.1:1', CHAIN_RPC_URLS_ETH: 'not a url' })).toThrow(
      /CHAIN_RPC_URLS_SOLANA: unknown chain "solana"[\s\S]*CHAIN_RPC_URLS_ETH: must be/,
    );
  });
});
