import type { Logger } from 'pino';

export interface AccessLogOptions {
  /** Share of successful (< 400) responses logged, 0..1. Default 0.01. */
  sampleRate?: number;
  /** Share of 4xx/5xx responses logged, 0..1. Default 1 (refusals are what an outage looks like). */
  errorSampleRate?: number;
  /** Most lines per second whatever the rates (a 401 storm must not become a log storm). Default 100. */
  maxPerSecond?: number;
  /** Random source (tests). */
  random?: () => number;
  /** Clock in ms (tests). */
  now?: () => number;
  /** Where unset rates are read from (ACCESS_LOG_*); default `process.env`. */
  env?: Record<string, string | undefined>;
}

/** The parts of a Fastify request / reply the hook reads. */
interface LoggedRequest {
  method: string;
  url: string;
  ip?: string;
  routeOptions?: { url?: string };
}
interface LoggedReply {
  statusCode: number;
  elapsedTime?: number;
}

/**
 * A Fastify `onResponse` hook writing a sampled access log line (`msg: "access"`, method, path
 * without query string — OAuth codes and tokens travel there — route, status, duration_ms, ip)
 * at info level: `fastify.addHook('onResponse', accessLogHook(logger, opts))`. Lines inherit
 * the logger's `trace_id` mixin where a span is active. Rates come from ACCESS_LOG_SAMPLE_RATE /
 * ACCESS_LOG_ERROR_SAMPLE_RATE / ACCESS_LOG_MAX_PER_SECOND (see `telemetryEnvSchema`).
 */
export function accessLogHook(logger: Logger, options: AccessLogOptions = {}): (req: LoggedRequest, reply: LoggedReply) => Promise<void> {
  const env = options.env ?? process.env;
  const num = (key: string) => (env[key] !== undefined && env[key] !== '' ? Number(env[key]) : undefined);
  const rate = clamp(options.sampleRate ?? num('ACCESS_LOG_SAMPLE_RATE') ?? 0.01);
  const errorRate = clamp(options.errorSampleRate ?? num('ACCESS_LOG_ERROR_SAMPLE_RATE') ?? 1);
  const maxPerSecond = options.maxPerSecond ?? num('ACCESS_LOG_MAX_PER_SECOND') ?? 100;
  const random = options.random ?? Math.random;
  const now = options.now ?? Date.now;
  let second = 0;
  let lines = 0;
  return async (req, reply) => {
    const status = reply.statusCode;
    if (random() >= (status >= 400 ? errorRate : rate)) return;
    const t = Math.floor(now() / 1000);
    if (t !== second) {
      second = t;
      lines = 0;
    }
    if (++lines > maxPerSecond) return;
    const q = req.url.indexOf('?');
    logger.info(
      {
        access: true,
        method: req.method,
        path: q === -1 ? req.url : req.url.slice(0, q),
        route: req.routeOptions?.url,
        status,
        duration_ms: reply.elapsedTime !== undefined ? Math.round(reply.elapsedTime * 10) / 10 : undefined,
        ip: req.ip,
      },
      'access',
    );
  };
}

function clamp(v: number): number {
  return Number.isFinite(v) ? Math.min(1, Math.max(0, v)) : 0;
}
