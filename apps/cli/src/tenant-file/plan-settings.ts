import type { UpdateTenantAuthBody, UpdateTenantBody, PutLimitsBody } from '@switchboard/admin-api';
import { diffFields, type FieldChange } from './compare';
import type { LiveState } from './live-state';
import { guardrailsStep } from './plan-guardrails';
import type { PlanStep } from './plan-step';
import { describeSecrets, secretRefs, withSecrets } from './secrets';
import type { TenantFile } from './tenant-file-schema';

/** Differences of the keys the file sets (a key left out is not managed). */
function managedDiff(prefix: string, live: Record<string, unknown>, desired: Record<string, unknown>): FieldChange[] {
  return Object.keys(desired).flatMap((k) => diffFields(`${prefix}.${k}`, live[k], desired[k]));
}

/** `tenant` and `surfaceRules`: one PATCH /v1/tenant with the keys that differ (surface rules replace whole). */
function tenantStep(file: TenantFile, live: LiveState): PlanStep | undefined {
  const desired: Record<string, unknown> = { ...(file.tenant ?? {}) };
  const current: Record<string, unknown> = { ...live.tenant };
  const changes = managedDiff('tenant', current, desired);
  if (file.surfaceRules !== undefined) changes.push(...diffFields('surfaceRules', live.tenant.surfaceRules ?? {}, file.surfaceRules));
  if (changes.length === 0) return undefined;
  const body: UpdateTenantBody = {};
  for (const key of Object.keys(desired) as Array<keyof NonNullable<TenantFile['tenant']>>) {
    if (changes.some((c) => c.field === `tenant.${key}` || c.field.startsWith(`tenant.${key}.`)))
      (body as Record<string, unknown>)[key] = desired[key];
  }
  if (file.surfaceRules !== undefined && changes.some((c) => c.field.startsWith('surfaceRules'))) body.surfaceRules = file.surfaceRules;
  return {
    action: 'update',
    target: 'tenant',
    changes,
    secrets: [],
    execute: async ({ client }) => void (await client.call('updateTenant', { body })),
  };
}

/** The live auth settings in the file's shape (secrets are write-only: never compared). */
function liveAuth(live: LiveState): Record<string, unknown> {
  const a = live.auth;
  const idp =
    a.idp.kind === 'local' ? { kind: 'local' } : { kind: 'oidc', issuer: a.idp.issuer, clientId: a.idp.clientId, scopes: a.idp.scopes };
  return {
    protected: a.protected,
    scopes: a.scopes,
    defaultScopes: a.defaultScopes,
    toolScopes: a.toolScopes,
    allowPrivateUseRedirects: a.allowPrivateUseRedirects,
    idp,
  };
}

function authStep(file: TenantFile, live: LiveState, rotateSecrets: boolean): PlanStep | undefined {
  if (!file.auth) return undefined;
  const desired = file.auth as Record<string, unknown>;
  const { clientSecret, ...idpWithoutSecret } = (file.auth.idp ?? {}) as { clientSecret?: unknown };
  const comparable = { ...desired, ...(file.auth.idp ? { idp: idpWithoutSecret } : {}) };
  const changes = managedDiff('auth', liveAuth(live), comparable);
  const sendSecret = clientSecret !== undefined && (rotateSecrets || changes.some((c) => c.field.startsWith('auth.idp')));
  if (sendSecret) changes.push({ field: 'auth.idp.clientSecret', after: describeSecrets(clientSecret) });
  if (changes.length === 0) return undefined;
  const body = (sendSecret ? desired : { ...desired, ...(file.auth.idp ? { idp: idpWithoutSecret } : {}) }) as UpdateTenantAuthBody;
  return {
    action: 'update',
    target: 'auth',
    changes,
    secrets: sendSecret ? secretRefs(clientSecret, 'auth.idp.clientSecret') : [],
    execute: async ({ client, env }) => void (await client.call('updateTenantAuth', { body: withSecrets(env, body, 'auth') })),
  };
}

function limitsStep(file: TenantFile, live: LiveState): PlanStep | undefined {
  if (!file.limits) return undefined;
  const current = { rate: live.limits.rate ?? null, callLog: live.limits.callLog ?? {} };
  const desired: Record<string, unknown> = {};
  if (file.limits.rate !== undefined) desired.rate = file.limits.rate;
  if (file.limits.callLog !== undefined) desired.callLog = file.limits.callLog;
  const changes = managedDiff('limits', current, desired);
  if (changes.length === 0) return undefined;
  const body = desired as PutLimitsBody;
  return {
    action: 'update',
    target: 'limits',
    changes,
    secrets: [],
    execute: async ({ client }) => void (await client.call('putLimits', { body })),
  };
}

/** Steps for the tenant's settings sections, in apply order. */
export function planSettings(file: TenantFile, live: LiveState, rotateSecrets: boolean): PlanStep[] {
  return [
    tenantStep(file, live),
    authStep(file, live, rotateSecrets),
    limitsStep(file, live),
    guardrailsStep(file, live, rotateSecrets),
  ].filter((s): s is PlanStep => s !== undefined);
}
