import type { CompiledInterceptor, Verdict } from './compiled-guardrails';
import type { InterceptorConfig, WebhookConfig } from './guardrails-schema';

const MAX_REASON = 256;

/** A webhook's answer that is not a SEP-2624 ValidationResult / MutationResult. */
export class WebhookAnswerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookAnswerError';
  }
}

/**
 * A tenant webhook interceptor. The request body is SEP-2624's `interceptor/invoke` params
 * (`name`, `event`, `phase`, `payload`) plus a `context` (server, target, caller subject and
 * client, timestamp); the answer is a ValidationResult (`valid`, `messages`) or a
 * MutationResult (`modified`, `payload`) according to the interceptor's type.
 */
export function webhookRun(config: InterceptorConfig, webhook: WebhookConfig): CompiledInterceptor['run'] {
  return async (payload, ctx, deps): Promise<Verdict> => {
    const [event, side] = ctx.point.split(':') as [string, 'request' | 'response'];
    const body = {
      name: config.name,
      event,
      phase: side,
      payload,
      context: {
        server: ctx.server,
        target: ctx.target,
        principal: { id: ctx.caller.subject, client: ctx.caller.client },
        timestamp: ctx.now.toISOString(),
      },
    };
    const answer = await deps.webhook(webhook, config.name, body);
    if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) throw new WebhookAnswerError('answer is not a JSON object');
    const a = answer as Record<string, unknown>;
    if (config.type === 'validation') {
      if (typeof a.valid !== 'boolean') throw new WebhookAnswerError('answer has no boolean "valid"');
      return a.valid ? { kind: 'allow' } : { kind: 'deny', reason: reasonOf(a.messages) };
    }
    if (typeof a.modified !== 'boolean') throw new WebhookAnswerError('answer has no boolean "modified"');
    if (!a.modified) return { kind: 'allow' };
    if (typeof a.payload !== 'object' || a.payload === null || Array.isArray(a.payload))
      throw new WebhookAnswerError('modified answer has no object "payload"');
    return { kind: 'mutate', payload: a.payload };
  };
}

/** The first message a webhook gave, clipped and stripped of control characters; it reaches the MCP client. */
function reasonOf(messages: unknown): string {
  const first = Array.isArray(messages) ? (messages[0] as { message?: unknown } | undefined)?.message : undefined;
  if (typeof first !== 'string' || first.trim() === '') return 'denied';
  const clean = first.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return clean.length > MAX_REASON ? `${clean.slice(0, MAX_REASON - 1)}…` : clean;
}
