import { z } from 'zod';

/** Bounds of what a tenant may configure: every one is a per-replica cost the tenant controls. */
export const GUARDRAIL_LIMITS = {
  interceptors: 32,
  selectors: 32,
  glob: 128,
  celRules: 16,
  celExpr: 2_048,
  message: 256,
  nationalIds: 16,
  pattern: 256,
  timeoutMs: [100, 10_000],
  maxBytes: [1_024, 1_048_576],
} as const;

/** SEP-2624 lifecycle events this gateway intercepts. */
export const INTERCEPTION_EVENTS = ['tools/call', 'prompts/get', 'resources/read'] as const;
export type InterceptionEvent = (typeof INTERCEPTION_EVENTS)[number];
export type InterceptionPhase = 'request' | 'response' | 'both';

/** Kinds the built-in redactor knows; `nationalId` applies the tenant's own `nationalIds` shapes. */
export const PII_KINDS = ['email', 'phone', 'card', 'iban', 'nationalId', 'jwt', 'bearer', 'apiKey'] as const;
export type PiiKind = (typeof PII_KINDS)[number];

const name = z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'must be 1-64 chars of a-z 0-9 . _ -, starting with a letter or digit');
const glob = z.string().min(1).max(GUARDRAIL_LIMITS.glob);

const piiSchema = z
  .object({
    builtin: z.literal('pii'),
    kinds: z.array(z.enum(PII_KINDS)).min(1).max(PII_KINDS.length).optional(),
    nationalIds: z
      .array(z.object({ name, pattern: z.string().min(1).max(GUARDRAIL_LIMITS.pattern) }).strict())
      .max(GUARDRAIL_LIMITS.nationalIds)
      .optional(),
  })
  .strict();

const celSchema = z
  .object({
    builtin: z.literal('cel'),
    rules: z
      .array(
        z
          .object({
            name,
            expr: z.string().min(1).max(GUARDRAIL_LIMITS.celExpr),
            message: z.string().min(1).max(GUARDRAIL_LIMITS.message),
          })
          .strict(),
      )
      .min(1)
      .max(GUARDRAIL_LIMITS.celRules),
  })
  .strict();

const webhookSchema = z
  .object({
    webhook: z
      .object({
        url: z.string().url().max(2_048),
        timeoutMs: z.number().int().min(GUARDRAIL_LIMITS.timeoutMs[0]).max(GUARDRAIL_LIMITS.timeoutMs[1]).default(2_000),
        maxBytes: z.number().int().min(GUARDRAIL_LIMITS.maxBytes[0]).max(GUARDRAIL_LIMITS.maxBytes[1]).default(65_536),
        // The registry publishes it sealed (SecretBox v2, AAD tenantSecretAad(tenant, 'guardrail:<name>')); a seed file may hold it plain.
        secret: z
          .string()
          .regex(
            /^(?:whsec_[A-Za-z0-9+/]{16,}={0,2}|v2\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/,
            'must be a Standard Webhooks secret (whsec_ + base64), or one sealed for the tenant',
          ),
      })
      .strict(),
  })
  .strict();

/**
 * One interceptor, in SEP-2624's shape (`type`, `hook.events`, `hook.phase`, `mode`, `failOpen`)
 * plus what a hosted gateway needs: a `match` selector over servers and tools (globs), and `use`,
 * which says what runs — a built-in (`pii`, `cel`) or the tenant's HTTPS webhook.
 */
export const interceptorSchema = z
  .object({
    name,
    description: z.string().max(GUARDRAIL_LIMITS.message).optional(),
    type: z.enum(['validation', 'mutation']),
    hook: z
      .object({
        events: z.array(z.enum(INTERCEPTION_EVENTS)).min(1).max(INTERCEPTION_EVENTS.length),
        phase: z.enum(['request', 'response', 'both']).default('response'),
      })
      .strict(),
    match: z
      .object({
        servers: z.array(glob).max(GUARDRAIL_LIMITS.selectors).optional(),
        tools: z.array(glob).max(GUARDRAIL_LIMITS.selectors).optional(),
      })
      .strict()
      .optional(),
    mode: z.enum(['enforce', 'audit']).default('enforce'),
    failOpen: z.boolean().default(false),
    use: z.union([piiSchema, celSchema, webhookSchema]),
  })
  .strict();

/** The `guardrails` section of the tenant document. */
export const guardrailsSchema = z
  .object({ interceptors: z.array(interceptorSchema).max(GUARDRAIL_LIMITS.interceptors).default([]) })
  .strict()
  .superRefine((g, ctx) => {
    const seen = new Set<string>();
    g.interceptors.forEach((i, n) => {
      if (seen.has(i.name))
        ctx.addIssue({ code: 'custom', path: ['interceptors', n, 'name'], message: `duplicate interceptor name "${i.name}"` });
      seen.add(i.name);
      if ('builtin' in i.use && i.use.builtin === 'cel' && i.type !== 'validation') {
        ctx.addIssue({ code: 'custom', path: ['interceptors', n, 'type'], message: 'a cel interceptor is a validation' });
      }
      if (i.hook.phase === 'request' && !i.hook.events.includes('tools/call')) {
        ctx.addIssue({
          code: 'custom',
          path: ['interceptors', n, 'hook', 'phase'],
          message: 'request phase is intercepted on tools/call only',
        });
      }
    });
  });

export type GuardrailsConfig = z.infer<typeof guardrailsSchema>;
/** The section as a producer writes it (defaults not yet filled). */
export type GuardrailsInput = z.input<typeof guardrailsSchema>;
export type InterceptorConfig = z.infer<typeof interceptorSchema>;
export type PiiConfig = z.infer<typeof piiSchema>;
export type CelConfig = z.infer<typeof celSchema>;
export type WebhookConfig = z.infer<typeof webhookSchema>['webhook'];

export interface GuardrailsIssue {
  /** Dotted path from the section root, e.g. `guardrails.interceptors.0.use.rules.1.expr`. */
  path: string;
  message: string;
}

/** Validates the `guardrails` section; the issues name the field (`guardrails.…`). */
export function parseGuardrails(raw: unknown): { ok: true; config: GuardrailsConfig } | { ok: false; errors: GuardrailsIssue[] } {
  const parsed = guardrailsSchema.safeParse(raw ?? {});
  if (parsed.success) return { ok: true, config: parsed.data };
  const errors = parsed.error.issues
    .slice(0, 20)
    .map((issue) => ({ path: ['guardrails', ...issue.path].join('.'), message: issue.message }));
  return { ok: false, errors };
}
