import { z } from 'zod';

/**
 * The environment the telemetry bootstrap reads (the standard OpenTelemetry variables plus
 * the deployment environment). Every app accepts these beside its own config schema; the
 * manifests check (`k8s/`, `docker-compose.yml`) uses this list to know they are legitimate.
 */
export const telemetryEnvSchema = z.object({
  /** OTLP base URL (e.g. `http://otel-collector:4318`). Unset, with OTEL_TRACES_EXPORTER unset too: no traces are exported. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
  /** Signal-specific OTLP endpoints (full URLs including `/v1/traces`, `/v1/metrics`). */
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.url().optional(),
  OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: z.url().optional(),
  /** `http/protobuf` (default) or `http/json`. */
  OTEL_EXPORTER_OTLP_PROTOCOL: z.enum(['http/protobuf', 'http/json', 'grpc']).optional(),
  /** Extra OTLP headers (`key=value,...`), e.g. a collector API key. */
  OTEL_EXPORTER_OTLP_HEADERS: z.string().optional(),
  /** `otlp`, `console` or `none`; setting it turns tracing on even without an endpoint. */
  OTEL_TRACES_EXPORTER: z.string().optional(),
  /** `otlp` (push every OTEL_METRIC_EXPORT_INTERVAL) or `none`; Prometheus `/metrics` is always served. */
  OTEL_METRICS_EXPORTER: z.string().optional(),
  OTEL_METRIC_EXPORT_INTERVAL: z.coerce.number().int().min(100).optional(),
  /** Logs go to stdout as JSON (pino); OTLP log export stays off unless set. */
  OTEL_LOGS_EXPORTER: z.string().optional(),
  OTEL_SERVICE_NAME: z.string().optional(),
  OTEL_RESOURCE_ATTRIBUTES: z.string().optional(),
  OTEL_TRACES_SAMPLER: z.string().optional(),
  OTEL_TRACES_SAMPLER_ARG: z.string().optional(),
  OTEL_PROPAGATORS: z.string().optional(),
  OTEL_BSP_SCHEDULE_DELAY: z.coerce.number().int().min(0).optional(),
  OTEL_SDK_DISABLED: z.enum(['true', 'false']).optional(),
  OTEL_LOG_LEVEL: z.string().optional(),
  /** `deployment.environment.name` resource attribute (`production`, `staging`, `dev`). */
  DEPLOYMENT_ENVIRONMENT: z.string().min(1).optional(),
  NODE_ENV: z.string().optional(),
  /** Sampled access log: share of successful responses logged (0..1, default 0.01). */
  ACCESS_LOG_SAMPLE_RATE: z.coerce.number().min(0).max(1).optional(),
  /** Share of 4xx/5xx responses logged (0..1, default 1). */
  ACCESS_LOG_ERROR_SAMPLE_RATE: z.coerce.number().min(0).max(1).optional(),
  /** Most access log lines per second per process (default 100). */
  ACCESS_LOG_MAX_PER_SECOND: z.coerce.number().int().min(0).optional(),
  /** Series budget: tenants with their own `tenant` label (the first to reach 10 requests; default 25), the rest are `other`. */
  TELEMETRY_MAX_TENANT_LABELS: z.coerce.number().int().min(0).max(10_000).optional(),
  /** Series budget: tool label values per labelled tenant (default 20), the rest are `other`. */
  TELEMETRY_MAX_TOOL_LABELS: z.coerce.number().int().min(0).max(1_000).optional(),
  /** Comma-separated tenants that always get their own label (count against TELEMETRY_MAX_TENANT_LABELS). */
  TELEMETRY_PINNED_TENANTS: z.string().optional(),
  /** Comma-separated tenants whose latency histogram is also split by tool (opt-in; pinned too). */
  TELEMETRY_TOOL_LABEL_TENANTS: z.string().optional(),
});

/** Names of the variables in {@link telemetryEnvSchema}. */
export const TELEMETRY_ENV_KEYS: readonly string[] = Object.keys(telemetryEnvSchema.shape);

/** True for a variable the telemetry bootstrap (or the OpenTelemetry SDK itself) reads. */
export function isTelemetryEnvKey(key: string): boolean {
  return key.startsWith('OTEL_') || TELEMETRY_ENV_KEYS.includes(key);
}
