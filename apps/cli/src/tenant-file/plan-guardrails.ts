import type { GetGuardrailsResponse, PutGuardrailsBody } from '@switchboard/admin-api';
import { diffFields, same } from './compare';
import type { LiveState } from './live-state';
import type { PlanStep } from './plan-step';
import { describeSecrets, secretRefs, withSecrets } from './secrets';
import type { GuardrailsSpec, TenantFile } from './tenant-file-schema';

type Interceptor = Record<string, unknown> & { name: string; use: Record<string, unknown> };

/** The environment variable an exported file names for an interceptor's webhook secret. */
export function guardrailSecretEnv(name: string): string {
  return `SWITCHBOARD_SECRET_GUARDRAIL_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/** An interceptor with the API's defaults filled in and no secret (set or referenced): what plans compare. */
function comparable(i: Interceptor): Interceptor {
  const hook = (i.hook ?? {}) as Record<string, unknown>;
  const base = { ...i, mode: i.mode ?? 'enforce', failOpen: i.failOpen ?? false, hook: { ...hook, phase: hook.phase ?? 'response' } };
  const webhook = i.use.webhook as Record<string, unknown> | undefined;
  if (!webhook) return base;
  const { secret: _ref, secretSet: _set, ...rest } = webhook;
  return { ...base, use: { webhook: { timeoutMs: 2000, maxBytes: 65536, ...rest } } };
}

const byName = (list: Interceptor[]) => Object.fromEntries(list.map((i) => [i.name, comparable(i)]));

/** Live interceptors whose webhook has a stored secret. */
function secretsSet(live: GetGuardrailsResponse): Set<string> {
  return new Set(live.interceptors.filter((i) => 'webhook' in i.use && i.use.webhook.secretSet).map((i) => i.name));
}

/**
 * `guardrails`: one PUT /v1/guardrails of the whole chain when the interceptors or their order
 * differ. Webhook secrets are write-only: one is sent for a new or changed interceptor, or with
 * --rotate-secrets; otherwise it is left out and the registry keeps the stored one.
 */
export function guardrailsStep(file: TenantFile, live: LiveState, rotateSecrets: boolean): PlanStep | undefined {
  if (!file.guardrails) return undefined;
  const desired = file.guardrails.interceptors as Interceptor[];
  const current = live.guardrails.interceptors as unknown as Interceptor[];
  const changes = diffFields(
    'guardrails',
    { order: current.map((i) => i.name), interceptors: byName(current) },
    { order: desired.map((i) => i.name), interceptors: byName(desired) },
  );
  const stored = secretsSet(live.guardrails);
  const liveByName = byName(current);
  const sendSecret = (i: Interceptor) => rotateSecrets || !stored.has(i.name) || !same(liveByName[i.name], comparable(i));
  const sent = desired.map((i) => {
    const webhook = i.use.webhook as Record<string, unknown> | undefined;
    if (!webhook || webhook.secret === undefined || sendSecret(i)) return i;
    const { secret: _kept, ...rest } = webhook;
    return { ...i, use: { webhook: rest } };
  });
  const refs = secretRefs(sent, 'guardrails.interceptors');
  for (const [n, i] of sent.entries()) {
    const secret = (i.use.webhook as Record<string, unknown> | undefined)?.secret;
    if (secret !== undefined && changes.every((c) => !c.field.startsWith(`guardrails.interceptors.${i.name}`))) {
      changes.push({ field: `guardrails.interceptors.${desired[n]!.name}.use.webhook.secret`, after: describeSecrets(secret) });
    }
  }
  if (changes.length === 0) return undefined;
  return {
    action: 'update',
    target: 'guardrails',
    changes,
    secrets: refs,
    execute: async ({ client, env }) =>
      void (await client.call('putGuardrails', {
        body: { interceptors: withSecrets(env, sent, 'guardrails.interceptors') } as PutGuardrailsBody,
      })),
  };
}

/** The live chain as the file writes it: defaults left as the API shows them, secrets as environment references. */
export function guardrailsSection(live: GetGuardrailsResponse): GuardrailsSpec | undefined {
  if (live.interceptors.length === 0) return undefined;
  const interceptors = live.interceptors.map((i) => {
    if (!('webhook' in i.use)) return i;
    const { secretSet, ...webhook } = i.use.webhook;
    return { ...i, use: { webhook: { ...webhook, ...(secretSet ? { secret: { fromEnv: guardrailSecretEnv(i.name) } } : {}) } } };
  });
  return { interceptors } as GuardrailsSpec;
}
