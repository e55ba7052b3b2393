import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { LabelCache } from './label-cache';
import { SeriesBudget } from './series-budget';
import { switchboardMetrics } from './switchboard-metrics';

/** A request the MCP transport refused before (or instead of) running a JSON-RPC method. */
export interface McpRefusalInfo {
  /** The tenant when the endpoint resolved to one; undefined for an unknown tenant / endpoint. */
  tenantId: string | undefined;
  /** The HTTP method (`POST`, `GET`, `DELETE`). */
  httpMethod: string;
  /** The route template (`/t/:tenant/mcp`), never the raw URL. */
  route: string;
  status: number;
  /** When the request arrived (`performance.now()` clock), for the span's start. */
  startedAt?: number;
  /** The client address after trusted proxies. */
  clientIp?: string;
  /** A more precise outcome than the status gives (e.g. `insufficient_scope`). */
  outcome?: string;
}

const OUTCOMES: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  406: 'not_acceptable',
  413: 'too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
};

const refusalLabels = new LabelCache((tenant, outcome, http_status) => Object.freeze({ tenant, outcome, http_status }));

/** The `outcome` of a refusal: `unknown_tenant` for a 404 without a tenant, else named after the status. */
function refusalOutcome(info: Pick<McpRefusalInfo, 'tenantId' | 'status' | 'outcome'>): string {
  if (info.outcome) return info.outcome;
  if (info.status === 404 && info.tenantId === undefined) return 'unknown_tenant';
  return OUTCOMES[info.status] ?? (info.status >= 500 ? 'server_error' : 'refused');
}

/**
 * Records one refused MCP HTTP request (401, 403, 404 unknown tenant, 413, 415, 429, …): a
 * SERVER span `{METHOD} {route}` (HTTP semconv naming: no JSON-RPC method is known yet) with
 * status ERROR, `error.type` = the status code and `switchboard.outcome`, and
 * `mcp_server_refusals_total{tenant,outcome,http_status}` — so an auth or JWKS outage shows as
 * refusals, not as zero traffic. Unknown tenants are labelled `unknown` (a client-chosen
 * string never becomes a label); known ones go through the series budget.
 */
export function mcpRefusal(info: McpRefusalInfo): void {
  const outcome = refusalOutcome(info);
  const status = String(info.status);
  const tenantLabel = info.tenantId === undefined ? 'unknown' : SeriesBudget.current().tenant(info.tenantId);
  switchboardMetrics().mcp.refusals.add(1, refusalLabels.get(tenantLabel, outcome, status));
  const startTime = info.startedAt !== undefined ? performance.timeOrigin + info.startedAt : undefined;
  const span = trace.getTracer('switchboard').startSpan(
    `${info.httpMethod} ${info.route}`,
    {
      kind: SpanKind.SERVER,
      ...(startTime !== undefined ? { startTime } : {}),
      attributes: {
        'http.request.method': info.httpMethod,
        'http.route': info.route,
        'http.response.status_code': info.status,
        'error.type': status,
        'switchboard.outcome': outcome,
        ...(info.tenantId !== undefined ? { 'switchboard.tenant.id': info.tenantId } : {}),
        ...(info.clientIp ? { 'client.address': info.clientIp } : {}),
      },
    },
    ROOT_CONTEXT,
  );
  span.setStatus({ code: SpanStatusCode.ERROR, message: outcome });
  span.end();
}
