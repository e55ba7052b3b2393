import { spawnSync } from 'node:child_process';
import path from 'node:path';

/**
 * What a process loads when it starts telemetry: the tracing SDK, its instrumentations and
 * the OTLP exporters only when it exports. Run in a child process (startTelemetry installs
 * process-wide providers once) on the built library, as `npm start` and the images run it.
 */
const BUILT = path.resolve(__dirname, '../dist/start-telemetry.js');
const HEAVY = [
  '@opentelemetry/sdk-node',
  '@opentelemetry/instrumentation-http',
  '@opentelemetry/instrumentation-pg',
  '@opentelemetry/instrumentation-ioredis',
  '@opentelemetry/exporter-metrics-otlp-proto',
  '@opentelemetry/exporter-metrics-otlp-http',
];

function loadedAfterStart(env: Record<string, string>): { loaded: string[]; tracing: boolean } {
  const script = `
    const { startTelemetry } = require(${JSON.stringify(BUILT)});
    const t = startTelemetry({ serviceName: 'spec', serviceVersion: '0.0.0', env: ${JSON.stringify(env)} });
    const heavy = ${JSON.stringify(HEAVY)};
    const files = Object.keys(require.cache);
    const loaded = heavy.filter((m) => files.some((f) => f.includes('/node_modules/' + m + '/')));
    process.stdout.write(JSON.stringify({ loaded, tracing: t.tracing }));
    t.shutdown().then(() => process.exit(0));
  `;
  const out = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 60_000, env: { PATH: process.env.PATH ?? '' } });
  if (out.status !== 0) throw new Error(`child failed (${out.status}): ${out.stderr}`);
  return JSON.parse(out.stdout) as { loaded: string[]; tracing: boolean };
}

describe('startTelemetry module loading', () => {
  it('loads no tracing SDK, instrumentation or OTLP exporter when nothing is exported (metrics on /metrics only)', () => {
    expect(loadedAfterStart({})).toEqual({ loaded: [], tracing: false });
  });

  it('loads the tracing SDK and instrumentations when traces are exported and the OTLP metric exporter', () => {
    const { loaded, tracing } = loadedAfterStart({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
      OTEL_METRIC_EXPORT_INTERVAL: '600000',
    });
    expect(tracing).toBe(true);
    expect(loaded).toEqual(
      expect.arrayContaining([
        '@opentelemetry/sdk-node',
        '@opentelemetry/instrumentation-http',
        '@opentelemetry/instrumentation-pg',
        '@opentelemetry/instrumentation-ioredis',
        '@opentelemetry/exporter-metrics-otlp-proto',
      ]),
    );
  });
});
