import { ROOT_CONTEXT, propagation, type Context } from '@opentelemetry/api';
import type { TraceCarrier } from './inject-trace-context';

/**
 * Reads a W3C trace context from HTTP headers (Node's lower-cased `IncomingHttpHeaders`, a
 * `Headers`) or from a job's `_trace` record, on top of `base` (default: the root context,
 * so an ambient context never leaks into a job or request that brought its own).
 */
export function extractTraceContext(carrier: TraceCarrier | undefined, base: Context = ROOT_CONTEXT): Context {
  if (carrier === undefined) return base;
  if (carrier instanceof Headers) {
    return propagation.extract(base, carrier, { get: (c, key) => c.get(key) ?? undefined, keys: (c) => [...c.keys()] });
  }
  return propagation.extract(base, carrier, {
    get: (c, key) => {
      const v = (c as Record<string, unknown>)[key];
      if (typeof v === 'string') return v;
      if (Array.isArray(v) && typeof v[0] === 'string') return v[0];
      return undefined;
    },
    keys: (c) => Object.keys(c),
  });
}
