import { createHmac, randomUUID } from 'node:crypto';
import { ConsecutiveBreaker, circuitBreaker, handleAll, type CircuitBreakerPolicy } from 'cockatiel';
import type { WebhookCaller, WebhookConfig } from '@switchboard/guardrails';
import { boundedFetch, guardedFetch, type GuardedFetch } from '@switchboard/net-guard';

export interface WebhookCallerOptions {
  /** Hosts where plain http is allowed and not range-checked (the gateway's UPSTREAM_ALLOW_HTTP_HOSTS). */
  allowHosts: readonly string[];
  /** Consecutive failures that open a webhook's breaker, and how long it stays open. */
  breaker: { failureThreshold: number; openMs: number };
  /** Injected fetch (tests); default the SSRF-guarded one. */
  fetch?: GuardedFetch;
}

/** Breakers kept at most (one per tenant webhook); past it the map starts over rather than grow without bound. */
const MAX_BREAKERS = 10_000;

/** A webhook answered with a non-2xx status. */
export class WebhookStatusError extends Error {
  constructor(readonly status: number) {
    super(`webhook answered HTTP ${status}`);
    this.name = 'WebhookStatusError';
  }
}

/**
 * Calls tenant interceptor webhooks: through net-guard (https only, private ranges refused,
 * checked again at connect time and on redirects), bounded in time and answer size by the
 * interceptor's `timeoutMs` / `maxBytes`, signed the Standard Webhooks way (`webhook-id`,
 * `webhook-timestamp`, `webhook-signature: v1,<HMAC-SHA256(id.timestamp.body)>`, as the
 * registry's webhooks are), behind one circuit breaker per webhook so a dead endpoint fails fast.
 */
export function webhookCaller(options: WebhookCallerOptions): WebhookCaller {
  const fetch = options.fetch ?? guardedFetch({ allowHosts: options.allowHosts });
  const breakers = new Map<string, CircuitBreakerPolicy>();
  const breakerOf = (key: string): CircuitBreakerPolicy => {
    let breaker = breakers.get(key);
    if (!breaker) {
      if (breakers.size >= MAX_BREAKERS) breakers.clear();
      breaker = circuitBreaker(handleAll, {
        halfOpenAfter: options.breaker.openMs,
        breaker: new ConsecutiveBreaker(options.breaker.failureThreshold),
      });
      breakers.set(key, breaker);
    }
    return breaker;
  };
  return (webhook, interceptor, body) =>
    breakerOf(`${interceptor}\n${webhook.url}\n${webhook.secret}`).execute(() => post(fetch, webhook, JSON.stringify(body)));
}

async function post(fetch: GuardedFetch, webhook: WebhookConfig, body: string): Promise<unknown> {
  const id = `msg_${randomUUID()}`;
  const timestamp = Math.floor(Date.now() / 1000);
  const signature = `v1,${createHmac('sha256', secretKey(webhook.secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
  const bounded = boundedFetch(fetch, { timeoutMs: webhook.timeoutMs, maxBytes: webhook.maxBytes });
  const res = await bounded(webhook.url, {
    method: 'POST',
    redirect: 'error',
    headers: {
      'content-type': 'application/json',
      'user-agent': 'Switchboard-Interceptors/1.0',
      'webhook-id': id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signature,
    },
    body,
  });
  if (res.status < 200 || res.status > 299) throw new WebhookStatusError(res.status);
  return JSON.parse(await res.text()) as unknown;
}

function secretKey(secret: string): Buffer {
  return Buffer.from(secret.slice('whsec_'.length), 'base64');
}
