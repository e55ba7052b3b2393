import type { IncomingMessage } from 'node:http';
import { context, metrics, propagation } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { IN_PLACE_METRICS } from './cell-histogram';
import { MeterProvider, PeriodicExportingMetricReader, type IMetricReader } from '@opentelemetry/sdk-metrics';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import { randomUUID } from 'node:crypto';
import { observeRuntime } from './observe-runtime';
import { propagateFetch } from './propagate-fetch';
import { SeriesBudget } from './series-budget';
import { prometheusNames } from './prometheus-names';

export interface StartTelemetryOptions {
  serviceName: string;
  serviceVersion: string;
  /** `deployment.environment.name`; default DEPLOYMENT_ENVIRONMENT, then NODE_ENV, then `development`. */
  environment?: string;
  /**
   * Incoming HTTP paths the http instrumentation must not wrap in its own SERVER span. The
   * gateway passes its MCP paths: those get an MCP SERVER span that decides itself whether
   * to trust the client's `traceparent` (an automatic HTTP span would always trust it).
   * Health and metrics probes are always ignored.
   */
  ignoreIncomingPaths?: RegExp;
  /** Defaults to `process.env`. */
  env?: Record<string, string | undefined>;
}

/** A started telemetry pipeline (one per process). */
export interface Telemetry {
  /** True when spans are recorded and exported (OTLP endpoint or OTEL_TRACES_EXPORTER set). */
  readonly tracing: boolean;
  /** The current metrics in the Prometheus text format (what `GET /metrics` answers). */
  metricsText(): Promise<string>;
  /** Flushes and stops exporters. */
  shutdown(): Promise<void>;
}

/** Content type of {@link Telemetry.metricsText}. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

const PROBE_PATHS = /^\/(healthz|readyz|metrics)(\?|$)/;

let started: Telemetry | undefined;

/**
 * Starts OpenTelemetry for this process, once (later calls return the first handle).
 * Metrics always flow to the Prometheus registry behind `metricsText()`; traces (and OTLP
 * metric push) are on only when OTEL_EXPORTER_OTLP_ENDPOINT / OTEL_TRACES_EXPORTER say so,
 * so tests and `npm start` stay quiet. W3C trace-context propagation and the async context
 * manager are always installed, so context flows even when spans are not recorded.
 * Call it before the app imports `http`, `pg` or `ioredis` for their instrumentation to apply.
 */
export function startTelemetry(options: StartTelemetryOptions): Telemetry {
  if (started) return started;
  const env = options.env ?? process.env;
  const resource = processResource(options, env);
  installSeriesBudget(env);
  const disabled = env.OTEL_SDK_DISABLED === 'true';
  const tracesExporter = env.OTEL_TRACES_EXPORTER?.trim();
  const tracing =
    !disabled &&
    tracesExporter !== 'none' &&
    Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || tracesExporter);
  const prometheus = new PrometheusExporter({ preventServerStart: true, metricProducers: [IN_PLACE_METRICS] });
  const readers = [prometheus, ...otlpMetricReaders(env, disabled)];
  const stop = tracing ? startTracingSdk(resource, readers, options.ignoreIncomingPaths) : startMetricsOnly(resource, readers);

  propagateFetch();
  const stopRuntime = observeRuntime();
  const serializer = new PrometheusSerializer();
  const handle: Telemetry = {
    tracing,
    async metricsText() {
      const { resourceMetrics } = await prometheus.collect();
      return serializer.serialize(prometheusNames(resourceMetrics));
    },
    async shutdown() {
      stopRuntime();
      await stop();
    },
  };
  started = handle;
  return handle;
}

type Env = Record<string, string | undefined>;

/*
 * The tracing SDK, its instrumentations and the OTLP exporters load only when this process
 * exports: at rest (metrics on /metrics only, the default) they would hold ~18 MB RSS and
 * ~6 MB of heap for nothing. Each is a plain synchronous `require` of a string literal inside
 * the function that needs it: the SDK still starts before the app loads `http`, `pg` or
 * `ioredis`, and the image bundler (ops/images/bundle.mjs) sees every one and bundles it — a
 * `require(variable)` is invisible to it and left the SDK out of the images (issue #50).
 */
/* eslint-disable @typescript-eslint/no-require-imports -- deliberate lazy loads, see above */
const loadOtlpMetricsHttp = (): typeof import('@opentelemetry/exporter-metrics-otlp-http') =>
  require('@opentelemetry/exporter-metrics-otlp-http');
const loadOtlpMetricsProto = (): typeof import('@opentelemetry/exporter-metrics-otlp-proto') =>
  require('@opentelemetry/exporter-metrics-otlp-proto');
const loadSdkNode = (): typeof import('@opentelemetry/sdk-node') => require('@opentelemetry/sdk-node');
const loadHttpInstrumentation = (): typeof import('@opentelemetry/instrumentation-http') => require('@opentelemetry/instrumentation-http');
const loadPgInstrumentation = (): typeof import('@opentelemetry/instrumentation-pg') => require('@opentelemetry/instrumentation-pg');
const loadIORedisInstrumentation = (): typeof import('@opentelemetry/instrumentation-ioredis') =>
  require('@opentelemetry/instrumentation-ioredis');
/* eslint-enable @typescript-eslint/no-require-imports */
type Resource = ReturnType<typeof defaultResource>;

/** The process's resource: OTEL_RESOURCE_ATTRIBUTES under the service's own name, version, environment and instance. */
function processResource(options: StartTelemetryOptions, env: Env): Resource {
  const environment = options.environment ?? env.DEPLOYMENT_ENVIRONMENT ?? env.NODE_ENV ?? 'development';
  const fromEnv = parseResourceAttributes(env.OTEL_RESOURCE_ATTRIBUTES);
  return defaultResource().merge(
    resourceFromAttributes({
      ...fromEnv,
      [ATTR_SERVICE_NAME]: env.OTEL_SERVICE_NAME ?? options.serviceName,
      [ATTR_SERVICE_VERSION]: options.serviceVersion,
      'deployment.environment.name': environment,
      // One id per process (replicas of a Deployment share service.name); a pod may pin its own.
      'service.instance.id': fromEnv['service.instance.id'] ?? randomUUID(),
    }),
  );
}

/** The label budget of tenant and tool attributes, from the TELEMETRY_* variables. */
function installSeriesBudget(env: Env): void {
  const list = (v: string | undefined) =>
    (v ?? '')
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean);
  SeriesBudget.install(
    new SeriesBudget({
      ...(env.TELEMETRY_MAX_TENANT_LABELS ? { maxTenants: Number(env.TELEMETRY_MAX_TENANT_LABELS) } : {}),
      ...(env.TELEMETRY_MAX_TOOL_LABELS ? { maxToolsPerTenant: Number(env.TELEMETRY_MAX_TOOL_LABELS) } : {}),
      pinnedTenants: list(env.TELEMETRY_PINNED_TENANTS),
      histogramToolTenants: list(env.TELEMETRY_TOOL_LABEL_TENANTS),
    }),
  );
}

/** The OTLP metric push beside the Prometheus registry, when an endpoint or OTEL_METRICS_EXPORTER=otlp asks for it. */
function otlpMetricReaders(env: Env, disabled: boolean): IMetricReader[] {
  const metricsExporter = env.OTEL_METRICS_EXPORTER?.trim();
  const pushMetrics =
    !disabled &&
    metricsExporter !== 'none' &&
    (metricsExporter === 'otlp' || Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT));
  if (!pushMetrics) return [];
  const json = env.OTEL_EXPORTER_OTLP_PROTOCOL === 'http/json';
  const exporter = json ? new (loadOtlpMetricsHttp().OTLPMetricExporter)() : new (loadOtlpMetricsProto().OTLPMetricExporter)();
  return [
    new PeriodicExportingMetricReader({
      exporter,
      exportIntervalMillis: Number(env.OTEL_METRIC_EXPORT_INTERVAL ?? 15_000),
      metricProducers: [IN_PLACE_METRICS],
    }),
  ];
}

/** Spans recorded and exported: the NodeSDK with the http, pg and ioredis instrumentations. Answers its stop. */
function startTracingSdk(resource: Resource, readers: IMetricReader[], ignorePaths: RegExp | undefined): () => Promise<void> {
  const { NodeSDK } = loadSdkNode();
  const { HttpInstrumentation } = loadHttpInstrumentation();
  const { PgInstrumentation } = loadPgInstrumentation();
  const { IORedisInstrumentation } = loadIORedisInstrumentation();
  const sdk = new NodeSDK({
    resource,
    autoDetectResources: false,
    metricReaders: readers,
    // pino writes JSON to stdout; the collector (or the platform) ships it. No OTLP logs.
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req: IncomingMessage) => {
          const url = req.url ?? '';
          return PROBE_PATHS.test(url) || (ignorePaths !== undefined && ignorePaths.test(url));
        },
      }),
      new PgInstrumentation({ requireParentSpan: true }),
      new IORedisInstrumentation({ requireParentSpan: true }),
    ],
  });
  sdk.start();
  return () => sdk.shutdown();
}

/** No spans: metrics only, but context and W3C propagation still installed so trace context flows. Answers its stop. */
function startMetricsOnly(resource: Resource, readers: IMetricReader[]): () => Promise<void> {
  const provider = new MeterProvider({ resource, readers });
  metrics.setGlobalMeterProvider(provider);
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }));
  return () => provider.shutdown();
}

/** `OTEL_RESOURCE_ATTRIBUTES` (`key=value,key2=value2`, values percent-encoded). */
function parseResourceAttributes(raw: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (raw ?? '').split(',')) {
    const eq = pair.indexOf('=');
    if (eq <= 0) continue;
    try {
      out[pair.slice(0, eq).trim()] = decodeURIComponent(pair.slice(eq + 1).trim());
    } catch {
      // A malformed value is skipped, not fatal.
    }
  }
  return out;
}
