import { context, propagation, type Context } from '@opentelemetry/api';

/** A place trace headers can be written to: a plain record (HTTP headers, job data) or a `Headers`. */
export type TraceCarrier = Record<string, unknown> | Headers;

/**
 * Writes the W3C `traceparent` / `tracestate` (and baggage) of `ctx` (default: the active
 * context) into `carrier` and returns it. Use on outgoing HTTP headers and on BullMQ job data
 * (`{ ...data, _trace: injectTraceContext({}) }`).
 */
export function injectTraceContext<T extends TraceCarrier>(carrier: T, ctx: Context = context.active()): T {
  if (carrier instanceof Headers) {
    propagation.inject(ctx, carrier, { set: (c, key, value) => c.set(key, value) });
  } else {
    propagation.inject(ctx, carrier, {
      set: (c, key, value) => {
        (c as Record<string, unknown>)[key] = value;
      },
    });
  }
  return carrier;
}
