import type { FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import type { InteractionResults } from 'oidc-provider';
import { sendPage } from '../http/request-helpers';

/** The pending interaction of this browser (by its interaction cookie); undefined after an error page was sent. */
export async function loadInteraction(provider: Provider, req: FastifyRequest, reply: FastifyReply) {
  try {
    return await provider.interactionDetails(req.raw, reply.raw);
  } catch {
    sendPage(
      reply,
      400,
      'Session expired',
      '<h1>invalid_request</h1><p>This sign-in session is unknown or expired (or was started in another browser). Start again from your application.</p>',
    );
    return undefined;
  }
}

/** Stores the interaction result and sends the browser back to the authorization endpoint. */
export async function finishInteraction(
  provider: Provider,
  req: FastifyRequest,
  reply: FastifyReply,
  result: InteractionResults,
): Promise<void> {
  const to = await provider.interactionResult(req.raw, reply.raw, result, { mergeWithLastSubmission: true });
  void reply.code(303).header('location', to).header('cache-control', 'no-store').send();
}
