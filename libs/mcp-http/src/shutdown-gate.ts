import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { GracefulShutdown } from './graceful-shutdown';

/**
 * Where a Fastify app's requests meet its `GracefulShutdown`. The app is built (and Fastify made
 * ready, after which no hook can be added) before `main` builds the shutdown around its server, so
 * the app installs this gate's `onRequest` hook while it is built and `main` attaches the shutdown later.
 */
export class ShutdownGate {
  private shutdown: GracefulShutdown | undefined;

  /** Registers the `onRequest` hook; call before the app is ready, ahead of any hook or route that answers requests. */
  install(fastify: FastifyInstance): void {
    fastify.addHook('onRequest', this.onRequest);
  }

  /** From now on every request is admitted (and counted) by `shutdown`. */
  attach(shutdown: GracefulShutdown): void {
    this.shutdown = shutdown;
  }

  /** A readiness probe answered 503 while draining was written to the raw response: Fastify must not answer it again. */
  readonly onRequest = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    if (this.shutdown === undefined || this.shutdown.admit(request.raw, reply.raw)) done();
    else reply.hijack();
  };
}
