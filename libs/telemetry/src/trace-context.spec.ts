import { context, propagation, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { extractTraceContext } from './extract-trace-context';
import { injectTraceContext } from './inject-trace-context';
import { startTelemetry } from './start-telemetry';
import { tracedFetch } from './traced-fetch';
import { withConsumerSpan } from './with-consumer-span';
import { withProducerSpan } from './with-producer-span';

const exporter = new InMemorySpanExporter();
const processor = new SimpleSpanProcessor({ exporter });
const provider = new TracerProvider({ spanProcessors: [processor] });
/** Finished spans once the processor has handed them over. */
async function finished() {
  await processor.forceFlush();
  return exporter.getFinishedSpans();
}
const telemetry = startTelemetry({ serviceName: 'spec', serviceVersion: '0.0.0', env: {} });
beforeAll(() => trace.setGlobalTracerProvider(provider));
afterEach(() => exporter.reset());
afterAll(async () => {
  await telemetry.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
});

describe('W3C propagation helpers', () => {
  it('round-trips the active context through HTTP headers and a Headers object', () => {
    const span = trace.getTracer('t').startSpan('root');
    const ctx = trace.setSpan(context.active(), span);
    const record = injectTraceContext<Record<string, unknown>>({}, ctx);
    expect(record.traceparent).toMatch(new RegExp(`^00-${span.spanContext().traceId}-${span.spanContext().spanId}-0[01]$`));
    const headers = injectTraceContext(new Headers(), ctx);
    expect(trace.getSpanContext(extractTraceContext(headers))?.traceId).toBe(span.spanContext().traceId);
    expect(trace.getSpanContext(extractTraceContext({ traceparent: [String(record.traceparent)] }))?.spanId).toBe(
      span.spanContext().spanId,
    );
    span.end();
  });

  it('tracedFetch sends the active traceparent', async () => {
    const seen: Headers[] = [];
    const fake: typeof fetch = async (_input, init) => {
      seen.push(new Headers(init?.headers));
      return new Response('{}');
    };
    const span = trace.getTracer('t').startSpan('root');
    await context.with(trace.setSpan(context.active(), span), () =>
      tracedFetch(fake)('http://127.0.0.1/x', { headers: { 'x-keep': '1' } }),
    );
    span.end();
    expect(seen[0]?.get('traceparent')).toContain(span.spanContext().traceId);
    expect(seen[0]?.get('x-keep')).toBe('1');
  });

  it('links a BullMQ-style job: the consumer span continues the producer trace', async () => {
    const queue: Array<{ name: string; data: unknown; timestamp: number }> = [];
    const root = trace.getTracer('t').startSpan('register upstream');
    await context.with(trace.setSpan(context.active(), root), () =>
      withProducerSpan('discovery', 'discover', { tenantId: 'acme' }, async (data) =>
        queue.push({ name: 'discover', data, timestamp: Date.now() }),
      ),
    );
    root.end();
    const job = queue[0]!;
    expect(job.data).toMatchObject({ tenantId: 'acme', _trace: { traceparent: expect.any(String) } });
    await withConsumerSpan('discovery', job, async () => undefined);
    const spans = await finished();
    const producer = spans.find((s) => s.name === 'send discovery');
    const consumer = spans.find((s) => s.name === 'process discovery');
    expect(consumer?.spanContext().traceId).toBe(root.spanContext().traceId);
    expect(consumer?.parentSpanContext?.spanId).toBe(producer?.spanContext().spanId);
    expect(await telemetry.metricsText()).toMatch(/queue_jobs_total\{[^}]*queue="discovery"/);
  });

  it('continues a job that carries only a bare traceparent field', async () => {
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    await withConsumerSpan('discovery', { name: 'discover', data: { tenantId: 'acme', traceparent } }, async () => undefined);
    const [consumer] = await finished();
    expect(consumer?.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(consumer?.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
  });
});

describe('propagateFetch', () => {
  it('adds the active traceparent to requests made with the global fetch', async () => {
    const { createServer } = await import('node:http');
    const seen: Array<string | undefined> = [];
    const server = createServer((req, res) => {
      seen.push(req.headers.traceparent as string | undefined);
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/`;
    const span = trace.getTracer('t').startSpan('root');
    await context.with(trace.setSpan(context.active(), span), async () => (await fetch(url)).text());
    await (await fetch(url)).text();
    span.end();
    server.close();
    expect(seen[0]).toContain(span.spanContext().traceId);
    expect(seen[1]).toBeUndefined();
  });

  it('leaves a request that already carries a traceparent alone, and still adds one beside look-alike headers', async () => {
    const { createServer } = await import('node:http');
    // Per request: the [name, value] pairs whose name mentions traceparent, as they arrived.
    const seen: Array<Array<[string, string]>> = [];
    const server = createServer((req, res) => {
      const pairs: Array<[string, string]> = [];
      for (let i = 0; i < req.rawHeaders.length; i += 2)
        if (/traceparent/i.test(req.rawHeaders[i]!)) pairs.push([req.rawHeaders[i]!.toLowerCase(), req.rawHeaders[i + 1]!]);
      seen.push(pairs);
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/`;
    const own = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const span = trace.getTracer('t').startSpan('root');
    await context.with(trace.setSpan(context.active(), span), async () => {
      await (await fetch(url, { headers: { TraceParent: own } })).text();
      // A header whose name or value merely contains the word is no traceparent.
      await (await fetch(url, { headers: { 'x-traceparent-note': 'traceparent' } })).text();
    });
    span.end();
    server.close();
    expect(seen[0]).toEqual([['traceparent', own]]);
    expect(seen[1]).toEqual([
      ['x-traceparent-note', 'traceparent'],
      ['traceparent', expect.stringContaining(span.spanContext().traceId)],
    ]);
  });
});
