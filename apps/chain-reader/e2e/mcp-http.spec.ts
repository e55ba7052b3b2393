import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { devnetChain } from '../src/chains/devnet-chain';
import type { ChainRuntime } from '../src/chain-runtime';
import { createChainReaderApp } from '../src/create-app';
import { startDevnet, type Devnet } from '../src/devnet/start-devnet';
import { testRuntime } from '../src/testing/test-runtime';

interface RpcResponse {
  result?: { content?: { type: string; text: string }[]; isError?: boolean; tools?: { name: string }[]; structuredContent?: unknown };
  error?: { code: number; message: string };
}

describe('chain-reader over MCP HTTP', () => {
  let devnet: Devnet;
  let rt: ChainRuntime;
  let app: NestFastifyApplication;

  beforeAll(async () => {
    devnet = await startDevnet({ port: 0 });
    rt = testRuntime({ devnet: devnetChain(devnet, [devnet.rpcUrl]) });
    app = await createChainReaderApp(rt);
  });
  afterAll(async () => {
    await app?.close();
    await rt?.close({ purge: true });
    await devnet?.stop();
  });

  let nextId = 1;
  const rpc = async (method: string, params: Record<string, unknown> = {}): Promise<{ status: number; body: RpcResponse }> => {
    const res = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      payload: { jsonrpc: '2.0', id: nextId++, method, params },
    });
    const text = res.body.startsWith('event:') || res.body.startsWith('data:') ? (/data: (.*)/.exec(res.body)?.[1] ?? '{}') : res.body;
    return { status: res.statusCode, body: JSON.parse(text) as RpcResponse };
  };
  const call = (name: string, args: Record<string, unknown>) => rpc('tools/call', { name, arguments: args });
  const textOf = (r: RpcResponse): string => r.result?.content?.[0]?.text ?? '';

  it('answers /healthz', async () => {
    const res = await app.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'ok', chains: ['devnet'] });
  });

  it('lists the three chain tools', async () => {
    await rpc('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } });
    const { body } = await rpc('tools/list');
    expect(body.result?.tools?.map((t) => t.name).sort()).toEqual(['get_contract_info', 'get_uniswap_v3_pool', 'read_contract_state']);
  });

  it('serves each tool', async () => {
    const pool = await call('get_uniswap_v3_pool', { chain: 'devnet', address: devnet.addresses.pools.wethUsdc.address });
    expect(pool.status).toBe(200);
    expect(pool.body.result?.isError).toBeFalsy();
    expect(JSON.parse(textOf(pool.body))).toMatchObject({ protocol: 'uniswap_v3', fee_tier_percent: '0.3' });
    const state = await call('read_contract_state', { chain: 'devnet', address: devnet.addresses.usdc, function_name: 'decimals' });
    expect(JSON.parse(textOf(state.body))).toMatchObject({ result: '6' });
    const info = await call('get_contract_info', { chain: 'devnet', address: devnet.addresses.usdc });
    expect(JSON.parse(textOf(info.body))).toMatchObject({ adapter: 'erc20' });
  });

  it.each([
    ['unknown chain', 'get_uniswap_v3_pool', { chain: 'nochain', address: '0x0000000000000000000000000000000000000001' }, /chain/],
    ['malformed address', 'get_contract_info', { chain: 'devnet', address: '0x12' }, /address/],
    ['an EOA', 'get_uniswap_v3_pool', { chain: 'devnet', address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' }, /no contract code/],
    [
      'an EOA read',
      'read_contract_state',
      { chain: 'devnet', address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', function_name: 'decimals' },
      /no contract code/,
    ],
    [
      'unknown function',
      'read_contract_state',
      { chain: 'devnet', address: '0x0000000000000000000000000000000000000001', function_name: 'nope' },
      /function_name: "nope"/,
    ],
    [
      'wrong argument type',
      'read_contract_state',
      { chain: 'devnet', address: '0x0000000000000000000000000000000000000001', function_name: 'balanceOf', args: [42] },
      /args\[0\] \(owner: address\)/,
    ],
  ])('answers %s with an isError tool result, not an HTTP error', async (_label, tool, args, message) => {
    const { status, body } = await call(tool, args);
    expect(status).toBe(200);
    expect(body.result?.isError).toBe(true);
    expect(textOf(body)).toMatch(message);
  });

  it('answers a non-pool, a non-view function and a revert with isError results', async () => {
    const notPool = await call('get_uniswap_v3_pool', { chain: 'devnet', address: devnet.addresses.usdc });
    expect(notPool.body.result?.isError).toBe(true);
    expect(textOf(notPool.body)).toMatch(/not a Uniswap V3 pool/);
    const write = await call('read_contract_state', { chain: 'devnet', address: devnet.addresses.probe, function_name: 'bump' });
    expect(textOf(write.body)).toMatch(/not view\/pure/);
    const revert = await call('read_contract_state', { chain: 'devnet', address: devnet.addresses.probe, function_name: 'boom' });
    expect(revert.body.result?.isError).toBe(true);
    expect(textOf(revert.body)).toMatch(/DevProbe: boom/);
  });
});
