import type { ResourceMetrics } from '@opentelemetry/sdk-metrics';

const UNIT_SUFFIX: Record<string, string> = { s: '_seconds', By: '_bytes' };

/**
 * Adds the Prometheus base-unit suffix the OTel → Prometheus compatibility spec asks for
 * (`mcp.server.operation.duration` with unit `s` → `mcp_server_operation_duration_seconds`),
 * which the JS Prometheus exporter does not: the apps' `/metrics` then name a semconv
 * instrument exactly as the Collector's Prometheus exporter does for the same OTLP metric.
 * Runs at scrape time only (copies descriptors, never the data points).
 */
export function prometheusNames(metrics: ResourceMetrics): ResourceMetrics {
  return {
    ...metrics,
    scopeMetrics: metrics.scopeMetrics.map((scope) => ({
      ...scope,
      metrics: scope.metrics.map((m) => {
        const suffix = UNIT_SUFFIX[m.descriptor.unit];
        if (!suffix || m.descriptor.name.replace(/\./g, '_').endsWith(suffix)) return m;
        return { ...m, descriptor: { ...m.descriptor, name: `${m.descriptor.name}${suffix}` } };
      }),
    })),
  };
}
