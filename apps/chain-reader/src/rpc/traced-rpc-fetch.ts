import { switchboardMetrics, withClientSpan } from '@switchboard/telemetry';
import { decodeFunctionData, multicall3Abi, type Hex } from 'viem';

/** Selector of Multicall3 `aggregate3((address,bool,bytes)[])`. */
const AGGREGATE3 = '0x82ad56cb';

interface RpcBody {
  method?: unknown;
  params?: unknown;
}

/** Calls carried by one JSON-RPC request: the `aggregate3` entries of a Multicall3 batch, the members of a JSON-RPC batch, else 1. */
function describe(body: unknown): { method: string; size: number } {
  let parsed: RpcBody | RpcBody[];
  try {
    parsed = JSON.parse(typeof body === 'string' ? body : '') as RpcBody | RpcBody[];
  } catch {
    return { method: 'unknown', size: 1 };
  }
  if (Array.isArray(parsed)) return { method: 'batch', size: parsed.length };
  const method = typeof parsed.method === 'string' ? parsed.method : 'unknown';
  const data = Array.isArray(parsed.params) ? (parsed.params[0] as { data?: unknown } | undefined)?.data : undefined;
  if (method === 'eth_call' && typeof data === 'string' && data.startsWith(AGGREGATE3)) {
    try {
      const { args } = decodeFunctionData({ abi: multicall3Abi, data: data as Hex });
      const calls = args[0] as readonly unknown[];
      return { method: 'eth_call multicall3', size: calls.length };
    } catch {
      return { method, size: 1 };
    }
  }
  return { method, size: 1 };
}

/**
 * The `fetch` viem's http transport uses for one chain: every JSON-RPC request becomes a CLIENT
 * span (`rpc eth_call multicall3`) with the batch size, and is counted in
 * `chain_reader_rpc_requests_total`, `chain_reader_rpc_duration_seconds` and
 * `chain_reader_rpc_batch_size`. The span is a child of the MCP request that opened the batch.
 */
export function tracedRpcFetch(chain: string, base: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const { method, size } = describe(init?.body);
    const started = performance.now();
    let outcome = 'error';
    try {
      return await withClientSpan(
        `rpc ${method}`,
        { 'rpc.system': 'jsonrpc', 'rpc.method': method.split(' ')[0]!, 'switchboard.chain': chain, 'switchboard.rpc.batch_size': size },
        async (span) => {
          const res = await base(input, init);
          outcome = res.ok ? 'ok' : `http_${res.status}`;
          span.setAttribute('http.response.status_code', res.status);
          return res;
        },
      );
    } finally {
      const m = switchboardMetrics().chain;
      const labels = { chain, method: method.split(' ')[0]!, outcome };
      m.rpcRequests.add(1, labels);
      m.rpcDuration.record((performance.now() - started) / 1000, labels);
      m.batchSize.record(size, { chain });
    }
  };
}
