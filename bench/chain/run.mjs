// chain-reader bench: 200 concurrent distinct read_contract_state calls through the service
// (MCP over HTTP → Multicall3 batching) vs the same reads through plain viem without batching,
// counted by a JSON-RPC proxy in front of a local anvil devnet; then warm-cache throughput and
// RPC cost per pool panel. Run after a build: `npx tsc -b tsconfig.build.json && npx node bench/chain/run.mjs`.
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { createPublicClient, http, parseAbi } from 'viem';

const require = createRequire(import.meta.url);
const dist = '../../apps/chain-reader/dist';
const { startDevnet } = require(`${dist}/devnet/start-devnet.js`);
const { startCountingProxy } = require(`${dist}/devnet/counting-proxy.js`);
const { devnetChain } = require(`${dist}/chains/devnet-chain.js`);
const { ChainRuntime } = require(`${dist}/chain-runtime.js`);
const { createChainReaderApp } = require(`${dist}/create-app.js`);

const N = 200;
const WARM_ROUNDS = 10;

const devnet = await startDevnet({ port: 0 });
const proxy = await startCountingProxy(devnet.rpcUrl);
const holders = Array.from({ length: N }, (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}`);

function runtime() {
  return new ChainRuntime({
    chains: { devnet: devnetChain(devnet, [proxy.url]) },
    redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    redisPrefix: `cr-bench-${randomUUID().slice(0, 8)}`,
    batch: { wait: Number(process.env.BATCH_WAIT_MS ?? 16), batchSize: 16_384 },
    cache: { latestTtlSec: 60, blockTtlSec: 3600, panelTtlSec: 15, immutableTtlSec: 3600 },
  });
}

const rt = runtime();
await rt.cache.waitReady(2_000);
const app = await createChainReaderApp(rt);
await app.listen({ port: 0, host: '127.0.0.1' });
const { port } = app.getHttpAdapter().getInstance().server.address();
const mcpUrl = `http://127.0.0.1:${port}/mcp`;

let id = 1;
async function callTool(name, args) {
  const res = await fetch(mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name, arguments: args } }),
  });
  const text = await res.text();
  const body = JSON.parse(text.startsWith('{') ? text : /data: (.*)/.exec(text)[1]);
  if (body.result?.isError || body.error) throw new Error(`tool error: ${text.slice(0, 300)}`);
  return body.result;
}
const readAll = () => Promise.all(holders.map((h) => callTool('read_contract_state', { chain: 'devnet', address: devnet.addresses.weth, function_name: 'balanceOf', args: [h] })));

async function measure(label, fn) {
  proxy.reset();
  const t0 = performance.now();
  await fn();
  const ms = performance.now() - t0;
  return { label, http: proxy.httpRequests, rpc: proxy.total(), eth_call: proxy.count('eth_call'), ms: Math.round(ms * 10) / 10 };
}

const rows = [];
// warm up the HTTP path and the Redis connection (not counted)
await callTool('read_contract_state', { chain: 'devnet', address: devnet.addresses.usdc, function_name: 'decimals' });

rows.push(await measure(`service over MCP HTTP: ${N} concurrent distinct read_contract_state, cold`, readAll));
const rtDirect = runtime();
await rtDirect.cache.waitReady(2_000);
rows.push(await measure(`service layer (tool payload, no HTTP): the same ${N} reads, cold`, () =>
  Promise.all(holders.map((h) => rtDirect.contractState.read({ chain: 'devnet', address: devnet.addresses.weth, function_name: 'balanceOf', args: [h] })))));
await rtDirect.close({ purge: true });
const plain = createPublicClient({ transport: http(proxy.url) });
const erc20 = parseAbi(['function balanceOf(address) view returns (uint256)']);
rows.push(
  await measure(`plain viem, no batching: the same ${N} reads`, () =>
    Promise.all(holders.map((h) => plain.readContract({ address: devnet.addresses.weth, abi: erc20, functionName: 'balanceOf', args: [h] })))),
);
const warm = await measure(`service: ${WARM_ROUNDS}×${N} reads, warm cache`, async () => { for (let i = 0; i < WARM_ROUNDS; i += 1) await readAll(); });
warm.label += ` (${Math.round((WARM_ROUNDS * N) / (warm.ms / 1000))} calls/s)`;
rows.push(warm);

const pools = Object.values(devnet.addresses.pools).map((p) => p.address);
rows.push(await measure('pool panel, cold (fresh cache)', () => callTool('get_uniswap_v3_pool', { chain: 'devnet', address: pools[0] })));
rows.push(await measure('pool panel, warm', () => callTool('get_uniswap_v3_pool', { chain: 'devnet', address: pools[0] })));
const rt2 = runtime();
await rt2.cache.waitReady(2_000);
await app.close();
const app2 = await createChainReaderApp(rt2);
await app2.listen({ port: 0, host: '127.0.0.1' });
const port2 = app2.getHttpAdapter().getInstance().server.address().port;
const url2 = `http://127.0.0.1:${port2}/mcp`;
const panelsAt = (url) => Promise.all(pools.map((address) => fetch(url, {
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
  body: JSON.stringify({ jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name: 'get_uniswap_v3_pool', arguments: { chain: 'devnet', address } } }),
}).then((r) => r.text())));
rows.push(await measure(`${pools.length} distinct pool panels concurrently, cold`, () => panelsAt(url2)));

console.log('\nchain-reader bench (anvil devnet on 127.0.0.1; counts from a JSON-RPC proxy in front of it)\n');
const w = Math.max(...rows.map((r) => r.label.length));
console.log(`${'scenario'.padEnd(w)} | HTTP req | JSON-RPC calls | eth_call | wall ms`);
console.log(`${'-'.repeat(w)}-|----------|----------------|----------|--------`);
for (const r of rows) console.log(`${r.label.padEnd(w)} | ${String(r.http).padStart(8)} | ${String(r.rpc).padStart(14)} | ${String(r.eth_call).padStart(8)} | ${String(r.ms).padStart(7)}`);

await app2.close();
await rt.close({ purge: true });
await rt2.close({ purge: true });
await proxy.close();
await devnet.stop();
process.exit(0);
