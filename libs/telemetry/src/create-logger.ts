import { context, trace } from '@opentelemetry/api';
import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';

export interface CreateLoggerOptions {
  service: string;
  level?: LoggerOptions['level'];
  /** Extra redaction paths on top of the defaults. */
  redact?: string[];
  /** Defaults to stdout. */
  destination?: DestinationStream;
}

/**
 * Paths redacted from every log line: credentials in headers, cookies, tokens and secrets
 * wherever they appear one or two levels deep (`req.headers.authorization`, `upstream.headers.x-api-key`, `config.SECRETS_KEY`).
 */
export const REDACT_PATHS: readonly string[] = [
  'authorization',
  'cookie',
  'password',
  'secret',
  'token',
  'apiKey',
  'api_key',
  'accessToken',
  'refreshToken',
  'clientSecret',
  'SECRETS_KEY',
  'INTERNAL_TOKEN',
  'REGISTRY_OPERATOR_KEY',
  'DATABASE_URL',
  'REDIS_URL',
]
  .flatMap((k) => [k, `*.${k}`, `*.*.${k}`])
  .concat([
    'req.headers.authorization',
    'req.headers.cookie',
    'req.headers["proxy-authorization"]',
    'req.headers["x-api-key"]',
    'res.headers["set-cookie"]',
    '*.headers.authorization',
    '*.headers.cookie',
    '*.headers["x-api-key"]',
    '*.headers["set-cookie"]',
    'headers.authorization',
    'headers.cookie',
    'headers["x-api-key"]',
  ]);

/**
 * A pino JSON logger with `service` on every line, `trace_id` / `span_id` of the active span
 * (so a log line opens its trace in Grafana), and credentials redacted. Callers add
 * `tenant` to the lines (or a child logger) that concern one tenant.
 */
export function createLogger(options: CreateLoggerOptions): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      base: { service: options.service },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: [...REDACT_PATHS, ...(options.redact ?? [])], censor: '[redacted]' },
      mixin() {
        const ctx = trace.getSpanContext(context.active());
        return ctx ? { trace_id: ctx.traceId, span_id: ctx.spanId } : {};
      },
    },
    options.destination,
  );
}
