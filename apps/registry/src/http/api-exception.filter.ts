import { Catch, HttpException, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { Logger } from 'pino';
import type { FastifyRequest } from 'fastify';
import { scimErrorBody } from './scim-error';
import { ApiError, DatabaseUnavailableError } from './api-error';

/**
 * The one exception filter: ApiError → its status and code; Postgres down → 503 with
 * Retry-After; Fastify/Nest client errors keep their 4xx; anything else is a logged 500
 * without a stack trace on the wire.
 */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  constructor(
    private readonly logger: Logger,
    private readonly retryAfterSeconds: number,
  ) {}

  catch(err: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    if (host.switchToHttp().getRequest<FastifyRequest>().url.startsWith('/scim/')) return this.scim(err, reply);
    if (err instanceof ApiError) {
      void reply.status(err.status).send({ error: { code: err.code, message: err.message, field: err.field, ...err.details } });
      return;
    }
    if (err instanceof DatabaseUnavailableError) {
      this.logger.warn({ err: err.message }, 'Postgres unavailable');
      void reply
        .status(503)
        .header('retry-after', String(this.retryAfterSeconds))
        .send({ error: { code: 'UNAVAILABLE', message: 'The registry database is unavailable; retry later' } });
      return;
    }
    if (err instanceof HttpException) {
      const status = err.getStatus();
      const code = status === 404 ? 'NOT_FOUND' : status === 413 ? 'PAYLOAD_TOO_LARGE' : status < 500 ? 'VALIDATION' : 'INTERNAL';
      // Body parse failures surface as a 400 HttpException; name the body.
      const body = status === 400 || status === 413 || status === 415;
      void reply
        .status(status)
        .send({ error: { code, message: body ? `body: ${err.message}` : err.message, ...(body ? { field: 'body' } : {}) } });
      return;
    }
    const e = err as { statusCode?: number; code?: string; message?: string };
    if (typeof e?.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
      // Fastify's own client errors: malformed JSON, wrong content type, body too large.
      const code = e.statusCode === 413 ? 'PAYLOAD_TOO_LARGE' : 'VALIDATION';
      void reply.status(e.statusCode).send({
        error: {
          code,
          message:
            e.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || /JSON/.test(e.message ?? '')
              ? 'body: not valid JSON'
              : (e.message ?? 'bad request'),
          field: 'body',
        },
      });
      return;
    }
    this.logger.error({ err: e?.message, code: e?.code }, 'unhandled error');
    void reply.status(500).send({ error: { code: 'INTERNAL', message: 'internal error' } });
  }

  /** SCIM routes answer in the SCIM error format (RFC 7644 §3.12). */
  private scim(err: unknown, reply: FastifyReply): void {
    const { status, body, retryAfter } = scimErrorBody(err);
    if (status >= 500) this.logger.error({ err: (err as Error)?.message }, 'unhandled SCIM error');
    if (retryAfter) void reply.header('retry-after', String(this.retryAfterSeconds));
    void reply.status(status).header('content-type', 'application/scim+json; charset=utf-8').send(JSON.stringify(body));
  }
}
