import { SpanKind, SpanStatusCode, context, trace, type Attributes, type Span } from '@opentelemetry/api';

/**
 * Runs `fn` inside a CLIENT span (an upstream MCP call, an RPC batch, a Redis read) that is a
 * child of the active span; `fn` gets the span to add attributes. A thrown error marks the
 * span as failed (`error.type` = the error's name) and is rethrown unchanged.
 */
export async function withClientSpan<T>(name: string, attributes: Attributes, fn: (span: Span) => Promise<T>): Promise<T> {
  const span = trace.getTracer('switchboard').startSpan(name, { kind: SpanKind.CLIENT, attributes });
  try {
    return await context.with(trace.setSpan(context.active(), span), () => fn(span));
  } catch (err) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message.slice(0, 200) : undefined });
    span.setAttribute('error.type', err instanceof Error ? err.name : 'Error');
    throw err;
  } finally {
    span.end();
  }
}
