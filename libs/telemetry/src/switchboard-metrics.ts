import {
  metrics,
  type Counter,
  type Gauge,
  type Histogram,
  type Meter,
  type MeterProvider,
  type ObservableGauge,
} from '@opentelemetry/api';
import { CellCounter } from './cell-counter';
import { CellHistogram, IN_PLACE_METRICS } from './cell-histogram';

/** Every instrument the Switchboard apps record, named once so dashboards and code agree. */
export interface SwitchboardMetrics {
  mcp: {
    /** `mcp_server_requests_total{tenant,method,tool,outcome}` (tenant and tool series-budgeted). */
    requests: CellCounter;
    /**
     * `mcp_server_operation_duration_seconds{mcp_method_name,tenant,error_type[,gen_ai_tool_name]}`: the
     * semconv `mcp.server.operation.duration` (tool label only for tenants that opted in).
     */
    duration: CellHistogram;
    /** `mcp_server_errors_total{tenant,method,tool,error_code}` (JSON-RPC errors and tool errors, code 0) */
    errors: CellCounter;
    /** `mcp_server_protocol_requests_total{era,protocol_version,surface,outcome}` (no tenant: the protocol and client mix of the fleet). */
    protocol: CellCounter;
    /** `mcp_server_refusals_total{tenant,outcome,http_status}`: requests refused before any JSON-RPC method ran (401, 403, 404, 413, …). */
    refusals: Counter;
  };
  upstream: {
    /**
     * `mcp_client_operation_duration_seconds{mcp_method_name,tenant,upstream,outcome,error_type}`: the
     * semconv `mcp.client.operation.duration`; recorded by (method, tenant, upstream, error type), the
     * outcome follows from the error type (none: `ok`, `tool_error`, else `error`).
     */
    duration: CellHistogram;
    /** `upstream_inflight{tenant,upstream}` calls in flight (concurrency-cap pressure); added to by (tenant, upstream, '', ''). */
    inflight: CellCounter;
    /** `upstream_circuit_state{upstream}`: 0 closed, 1 half-open, 2 open. */
    circuitState: Gauge;
  };
  auth: {
    /** `auth_authorizations_total{outcome}`: authorization requests (`ok` or the OAuth error code). */
    authorizations: Counter;
    /** `auth_token_grants_total{grant_type,outcome}`: token endpoint answers. */
    tokenGrants: Counter;
    /** `auth_client_registrations_total{outcome}`: dynamic client registrations. */
    registrations: Counter;
    /** `auth_sign_ins_total{idp,outcome}`: sign-in steps (local login, federated callback). */
    signIns: Counter;
    /** `auth_connector_grants_total{grant,outcome}`: connector tokens from enterprise identity (`token_exchange` | `cross_app`; `ok` | `cached` | `refused` | `unavailable`). */
    connectorGrants: Counter;
    /** `auth_id_jag_grants_total{outcome,check}`: JWT-bearer (ID-JAG) token requests; `check` names the refusing check (`none` when granted). */
    idJagGrants: Counter;
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

/** The semconv advice for `mcp.{server,client}.operation.duration`. */
const MCP_SECONDS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];
const SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const BATCH = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];

let cached: { provider: MeterProvider; value: SwitchboardMetrics } | undefined;

/**
 * The shared instruments on the global meter. Call after `startTelemetry` (instruments taken
 * from the API's no-op provider before that would record nothing); cached per global meter
 * provider (compared by identity: `getMeter` itself builds a key and looks it up, on every request).
 */
export function switchboardMetrics(): SwitchboardMetrics {
  const provider = metrics.getMeterProvider();
  if (cached && cached.provider === provider) return cached.value;
  const meter = provider.getMeter('switchboard');
  IN_PLACE_METRICS.clear();
  const value: SwitchboardMetrics = {
    mcp: mcpMetrics(meter),
    upstream: upstreamMetrics(meter),
    auth: authMetrics(meter),
    chain: chainMetrics(meter),
    queue: queueMetrics(meter),
  };
  cached = { provider, value };
  return value;
}

function mcpMetrics(meter: Meter): SwitchboardMetrics['mcp'] {
  return {
    // The per-request counters are summed in place and read at collection (see CellCounter).
    requests: new CellCounter(
      meter,
      'mcp.server.requests',
      { description: 'MCP requests answered, by tenant, method, tool and outcome' },
      (tenant, method, tool, outcome) => ({ tenant, method, tool, outcome }),
    ),
    // Aggregated in place too (see CellHistogram): a synchronous record hashes its attributes per request.
    duration: new CellHistogram(
      'mcp.server.operation.duration',
      'MCP request duration as observed on the receiver from the time it was received until the result is sent',
      's',
      MCP_SECONDS,
      (method, tenant, errorType, tool) => ({
        'mcp.method.name': method,
        tenant,
        ...(errorType ? { 'error.type': errorType } : {}),
        ...(tool ? { 'gen_ai.tool.name': tool } : {}),
      }),
    ),
    errors: new CellCounter(
      meter,
      'mcp.server.errors',
      { description: 'MCP requests answered with a JSON-RPC error or a tool error' },
      (tenant, method, tool, error_code) => ({ tenant, method, tool, error_code }),
    ),
    protocol: new CellCounter(
      meter,
      'mcp.server.protocol.requests',
      { description: 'MCP requests by protocol era, version and client surface' },
      (era, protocol_version, surface, outcome) => ({ era, protocol_version, surface, outcome }),
    ),
    refusals: meter.createCounter('mcp.server.refusals', {
      description: 'MCP HTTP requests refused before a JSON-RPC method ran (auth, unknown tenant, Host/Origin, size, media type)',
    }),
  };
}

function upstreamMetrics(meter: Meter): SwitchboardMetrics['upstream'] {
  return {
    // In place too (see CellHistogram / CellCounter): every proxied call records both.
    duration: new CellHistogram(
      'mcp.client.operation.duration',
      'Duration of one call to a tenant upstream MCP server as observed by the gateway',
      's',
      MCP_SECONDS,
      (method, tenant, upstream, errorType) => ({
        'mcp.method.name': method,
        tenant,
        upstream,
        outcome: errorType === '' ? 'ok' : errorType === 'tool_error' ? 'tool_error' : 'error',
        ...(errorType ? { 'error.type': errorType } : {}),
      }),
    ),
    inflight: new CellCounter(
      meter,
      'upstream.inflight',
      { description: 'Calls in flight per upstream server' },
      (tenant, upstream) => ({ tenant, upstream }),
      true,
    ),
    circuitState: meter.createGauge('upstream.circuit.state', {
      description: 'Circuit breaker state per upstream: 0 closed, 1 half-open, 2 open',
    }),
  };
}

function authMetrics(meter: Meter): SwitchboardMetrics['auth'] {
  return {
    authorizations: meter.createCounter('auth.authorizations', { description: 'OAuth authorization requests by outcome' }),
    tokenGrants: meter.createCounter('auth.token.grants', { description: 'OAuth token endpoint answers by grant type and outcome' }),
    registrations: meter.createCounter('auth.client.registrations', { description: 'Dynamic client registrations by outcome' }),
    signIns: meter.createCounter('auth.sign_ins', { description: 'Sign-in steps by identity provider kind and outcome' }),
    connectorGrants: meter.createCounter('auth.connector.grants', {
      description: 'Connector upstream tokens from enterprise identity by grant kind and outcome',
    }),
    idJagGrants: meter.createCounter('auth.id_jag.grants', {
      description: 'ID-JAG (enterprise-managed authorization) token requests by outcome and refusing check',
    }),
  };
}

function chainMetrics(meter: Meter): SwitchboardMetrics['chain'] {
  return {
    cacheLookups: meter.createCounter('chain_reader.cache.lookups', {
      description: 'chain-reader Redis cache lookups by result (hit or miss)',
    }),
    batchSize: meter.createHistogram('chain_reader.rpc.batch.size', {
      description: 'Calls per Multicall3 / JSON-RPC batch',
      advice: { explicitBucketBoundaries: BATCH },
    }),
    rpcRequests: meter.createCounter('chain_reader.rpc.requests', { description: 'Requests sent to EVM JSON-RPC endpoints' }),
    rpcDuration: seconds(meter, 'chain_reader.rpc.duration_seconds', 'Time of one EVM JSON-RPC request'),
  };
}

function queueMetrics(meter: Meter): SwitchboardMetrics['queue'] {
  return {
    jobs: meter.createCounter('queue.jobs', { description: 'Jobs processed by outcome' }),
    jobDuration: seconds(meter, 'queue.job.duration_seconds', 'Processing time of one job'),
    jobWait: seconds(meter, 'queue.job.wait_seconds', 'Time from enqueue to the start of processing'),
    depth: meter.createObservableGauge('queue.depth', { description: 'Jobs in a queue by state (waiting, active, delayed, failed)' }),
  };
}

/** A seconds histogram with the given bucket boundaries. */
function seconds(meter: Meter, name: string, description: string, buckets = SECONDS): Histogram {
  return meter.createHistogram(name, { description, unit: 's', advice: { explicitBucketBoundaries: buckets } });
}
