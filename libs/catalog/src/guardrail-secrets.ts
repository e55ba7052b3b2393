import type { GuardrailsConfig } from '@switchboard/guardrails';
import { tenantSecretAad } from './tenant-secret-aad';

/** AAD of an interceptor's webhook secret in a tenant document: binds the blob to its tenant and interceptor name. */
export function guardrailSecretAad(tenantId: string, interceptor: string): string {
  return tenantSecretAad(tenantId, `guardrail:${interceptor}`);
}

/** A SecretBox blob (the registry publishes webhook secrets sealed); a seed file may hold a plain `whsec_` one. */
const SEALED = /^v2\./;

/**
 * The guardrails section with every sealed webhook secret opened (`open` is SecretBox.open), for
 * the consumer that signs webhook requests; plain secrets pass as they are. Throws when a blob
 * does not open (another tenant's, or a key not configured), as a sealed credential does.
 */
export function openGuardrailSecrets(
  g: GuardrailsConfig,
  tenantId: string,
  open: (sealed: string, aad: string) => string,
): GuardrailsConfig {
  return {
    ...g,
    interceptors: g.interceptors.map((i) => {
      if (!('webhook' in i.use) || !SEALED.test(i.use.webhook.secret)) return i;
      return { ...i, use: { webhook: { ...i.use.webhook, secret: open(i.use.webhook.secret, guardrailSecretAad(tenantId, i.name)) } } };
    }),
  };
}
