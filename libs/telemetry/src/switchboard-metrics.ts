import { metrics, type Counter, type Gauge, type Histogram, type Meter, type ObservableGauge, type UpDownCounter } from '@opentelemetry/api';

/** Every instrument the Switchboard apps record, named once so dashboards and code agree. */
export interface SwitchboardMetrics {
  mcp: {
    /** `mcp_server_requests_total{tenant,method,tool,surface,era,protocol_version,outcome}` */
    requests: Counter;
    /** `mcp_server_request_duration_seconds{tenant,method,tool,surface,outcome}` */
    duration: Histogram;
    /** `mcp_server_errors_total{tenant,method,tool,surface,error_code}` (JSON-RPC errors and tool errors, code 0) */
    errors: Counter;
  };
  upstream: {
    /** `upstream_request_duration_seconds{tenant,upstream,operation,outcome}` */
    duration: Histogram;
    /** `upstream_inflight{upstream}` calls in flight (concurrency-cap pressure). */
    inflight: UpDownCounter;
    /** `upstream_circuit_state{upstream}`: 0 closed, 1 half-open, 2 open. */
    circuitState: Gauge;
  };
  chain: {
    /** `chain_reader_cache_lookups_total{kind,result}` with result `hit` | `miss`. */
    cacheLookups: Counter;
    /** `chain_reader_rpc_batch_size{chain}` calls per Multicall3 / JSON-RPC batch. */
    batchSize: Histogram;
    /** `chain_reader_rpc_requests_total{chain,method,outcome}` requests to EVM RPC endpoints. */
    rpcRequests: Counter;
    /** `chain_reader_rpc_duration_seconds{chain,method,outcome}` */
    rpcDuration: Histogram;
  };
  queue: {
    /** `queue_jobs_total{queue,job,outcome}` */
    jobs: Counter;
    /** `queue_job_duration_seconds{queue,job,outcome}` processing time. */
    jobDuration: Histogram;
    /** `queue_job_wait_seconds{queue,job}` enqueue-to-start latency. */
    jobWait: Histogram;
    /** `queue_depth{queue,state}`; feed it with `observeQueueDepth`. */
    depth: ObservableGauge;
  };
}

const SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const BATCH = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];

let cached: { meter: Meter; value: SwitchboardMetrics } | undefined;

/**
 * The shared instruments on the global meter. Call after `startTelemetry` (instruments taken
 * from the API's no-op provider before that would record nothing); cached per meter.
 */
export function switchboardMetrics(): SwitchboardMetrics {
  const meter = metrics.getMeter('switchboard');
  if (cached && cached.meter === meter) return cached.value;
  const seconds = (name: string, description: string) =>
    meter.createHistogram(name, { description, unit: 's', advice: { explicitBucketBoundaries: SECONDS } });
  const value: SwitchboardMetrics = {
    mcp: {
      requests: meter.createCounter('mcp.server.requests', { description: 'MCP requests answered, by tenant, method, tool, surface and outcome' }),
      duration: seconds('mcp.server.request.duration_seconds', 'Time to answer one MCP request'),
      errors: meter.createCounter('mcp.server.errors', { description: 'MCP requests answered with a JSON-RPC error or a tool error' }),
    },
    upstream: {
      duration: seconds('upstream.request.duration_seconds', 'Time of one call to a tenant upstream MCP server'),
      inflight: meter.createUpDownCounter('upstream.inflight', { description: 'Calls in flight per upstream server' }),
      circuitState: meter.createGauge('upstream.circuit.state', { description: 'Circuit breaker state per upstream: 0 closed, 1 half-open, 2 open' }),
    },
    chain: {
      cacheLookups: meter.createCounter('chain_reader.cache.lookups', { description: 'chain-reader Redis cache lookups by result (hit or miss)' }),
      batchSize: meter.createHistogram('chain_reader.rpc.batch.size', { description: 'Calls per Multicall3 / JSON-RPC batch', advice: { explicitBucketBoundaries: BATCH } }),
      rpcRequests: meter.createCounter('chain_reader.rpc.requests', { description: 'Requests sent to EVM JSON-RPC endpoints' }),
      rpcDuration: seconds('chain_reader.rpc.duration_seconds', 'Time of one EVM JSON-RPC request'),
    },
    queue: {
      jobs: meter.createCounter('queue.jobs', { description: 'Jobs processed by outcome' }),
      jobDuration: seconds('queue.job.duration_seconds', 'Processing time of one job'),
      jobWait: seconds('queue.job.wait_seconds', 'Time from enqueue to the start of processing'),
      depth: meter.createObservableGauge('queue.depth', { description: 'Jobs in a queue by state (waiting, active, delayed, failed)' }),
    },
  };
  cached = { meter, value };
  return value;
}
