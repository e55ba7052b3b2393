import { guardrailSecretAad } from '@switchboard/catalog';
import type { SecretBox } from '@switchboard/secret-box';
import type { Queryable } from '../db/database';
import { ApiError } from '../http/api-error';
import type { InterceptorInput } from './guardrails-config-schema';

/** One interceptor as stored and published: a webhook's `secret` is a SecretBox blob (AAD `guardrailSecretAad`). */
export type StoredInterceptor = InterceptorInput;

export interface StoredGuardrails {
  interceptors: StoredInterceptor[];
}

/** The tenant's stored chain (secrets sealed); an empty chain when none was set. */
export async function loadGuardrails(q: Queryable, tenantId: string): Promise<StoredGuardrails> {
  const rows = await q.query<{ guardrails: StoredGuardrails | null }>('SELECT guardrails FROM registry.tenants WHERE id = $1', [tenantId]);
  return rows[0]?.guardrails ?? { interceptors: [] };
}

/** The API's view: every webhook secret replaced by `secretSet`. */
export function guardrailsView(g: StoredGuardrails) {
  return {
    interceptors: g.interceptors.map((i) => {
      if (!('webhook' in i.use)) return i;
      const { secret, ...rest } = i.use.webhook;
      return { ...i, use: { webhook: { ...rest, secretSet: secret !== undefined } } };
    }),
  };
}

/**
 * The chain to store: each webhook's secret sealed, or — when the request leaves it out — the
 * sealed one stored under the same interceptor name kept (write-only, like IdP client secrets).
 * A webhook with neither is refused naming the field: requests to it must be signed.
 */
export function sealSecrets(box: SecretBox, tenantId: string, input: InterceptorInput[], current: StoredGuardrails): StoredInterceptor[] {
  const stored = new Map(current.interceptors.map((i) => [i.name, 'webhook' in i.use ? i.use.webhook.secret : undefined]));
  return input.map((i, n) => {
    if (!('webhook' in i.use)) return i;
    const secret =
      i.use.webhook.secret === undefined ? stored.get(i.name) : box.seal(i.use.webhook.secret, guardrailSecretAad(tenantId, i.name));
    if (secret === undefined) {
      const field = `body.interceptors.${n}.use.webhook.secret`;
      throw new ApiError(
        400,
        'VALIDATION',
        `${field}: a webhook interceptor needs a signing secret (none is stored for "${i.name}")`,
        field,
      );
    }
    return { ...i, use: { webhook: { ...i.use.webhook, secret } } };
  });
}

/** Stores the chain (null when empty: the document then has no `guardrails` at all). */
export async function saveGuardrails(q: Queryable, tenantId: string, interceptors: StoredInterceptor[]): Promise<void> {
  const value = interceptors.length === 0 ? null : JSON.stringify({ interceptors });
  await q.query('UPDATE registry.tenants SET guardrails = $2, updated_at = now() WHERE id = $1', [tenantId, value]);
}

/** What an audit record says about a chain: its shape, never a secret. */
export function auditSummary(interceptors: StoredInterceptor[]): Record<string, unknown> {
  return {
    interceptors: interceptors.map((i) => ({
      name: i.name,
      type: i.type,
      hook: i.hook,
      mode: i.mode,
      failOpen: i.failOpen,
      use: 'webhook' in i.use ? `webhook ${i.use.webhook.url}` : i.use.builtin,
    })),
  };
}
