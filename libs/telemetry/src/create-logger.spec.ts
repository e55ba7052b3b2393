import { Writable } from 'node:stream';
import { context, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { createLogger } from './create-logger';
import { startTelemetry } from './start-telemetry';

function capture(): { stream: Writable; lines: () => Record<string, unknown>[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      chunks.push(chunk.toString());
      cb();
    },
  });
  return {
    stream,
    lines: () =>
      chunks
        .join('')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

const telemetry = startTelemetry({ serviceName: 'spec', serviceVersion: '0.0.0', env: {} });
afterAll(async () => {
  await telemetry.shutdown();
  trace.disable();
  context.disable();
});

describe('createLogger', () => {
  it('adds service, trace_id and span_id of the active span', () => {
    trace.setGlobalTracerProvider(
      new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: new InMemorySpanExporter() })] }),
    );
    const out = capture();
    const log = createLogger({ service: 'gateway', destination: out.stream });
    const span = trace.getTracer('t').startSpan('s');
    context.with(trace.setSpan(context.active(), span), () => log.info({ tenant: 'acme' }, 'hello'));
    span.end();
    const [line] = out.lines();
    expect(line).toMatchObject({
      service: 'gateway',
      tenant: 'acme',
      trace_id: span.spanContext().traceId,
      span_id: span.spanContext().spanId,
      msg: 'hello',
    });
  });

  it('never writes credentials: authorization, cookies, tokens and secrets are redacted', () => {
    const out = capture();
    const log = createLogger({ service: 'gateway', destination: out.stream });
    log.info(
      {
        req: { headers: { authorization: 'Bearer abc.def.ghi', cookie: 'sid=s3cr3t', 'x-api-key': 'k-123' } },
        upstream: { headers: { authorization: 'Bearer upstream-secret' }, token: 'tok-1' },
        config: { SECRETS_KEY: 'c2VjcmV0', DATABASE_URL: 'postgres://u:pw@db/x' },
        refreshToken: 'r-1',
      },
      'request',
    );
    const text = JSON.stringify(out.lines());
    for (const secret of ['abc.def.ghi', 's3cr3t', 'k-123', 'upstream-secret', 'tok-1', 'c2VjcmV0', 'pw@db', 'r-1'])
      expect(text).not.toContain(secret);
    expect(text).toContain('[redacted]');
  });
});
