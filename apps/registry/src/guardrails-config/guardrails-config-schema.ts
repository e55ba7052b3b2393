import { GUARDRAIL_LIMITS, interceptorSchema } from '@switchboard/guardrails';
import { z } from 'zod';

/** The chain's bounds are the guardrails engine's (libs/guardrails GUARDRAIL_LIMITS): the registry refuses what a gateway would. */
export const GUARDRAILS_BOUNDS = GUARDRAIL_LIMITS;

const [piiUse, celUse, webhookDoc] = interceptorSchema.shape.use.options;
const hookDoc = webhookDoc.shape.webhook;

/** The API's webhook: as the document has it, but the secret is write-only (left out = keep the stored one). */
const webhookUse = z
  .object({
    webhook: hookDoc.extend({
      secret: z
        .string()
        .regex(/^whsec_[A-Za-z0-9+/]{16,}={0,2}$/, 'must be a Standard Webhooks secret (whsec_ + base64)')
        .optional()
        .describe('Standard Webhooks signing secret (whsec_…): write-only, sealed at rest; omit to keep the stored one'),
    }),
  })
  .strict();

/** The `use` branch a value means (by its keys), so a refusal names the field inside it rather than the whole union. */
export function useBranch(value: unknown): z.ZodType | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if ('webhook' in value) return webhookUse;
  const builtin = (value as { builtin?: unknown }).builtin;
  return builtin === 'cel' ? celUse : builtin === 'pii' ? piiUse : undefined;
}

export const interceptorInput = interceptorSchema.extend({ use: z.union([piiUse, celUse, webhookUse]) });

export type InterceptorInput = z.infer<typeof interceptorInput>;

/** `PUT /v1/guardrails`: the whole chain, in order (an empty list removes every interceptor). */
export const putGuardrailsBody = z
  .object({ interceptors: z.array(interceptorInput).max(GUARDRAIL_LIMITS.interceptors) })
  .strict()
  .describe("The tenant's interceptor chain, in the order it runs");

const webhookView = z.object({
  webhook: z.object({
    url: z.string(),
    timeoutMs: z.number(),
    maxBytes: z.number(),
    secretSet: z.boolean().describe('A signing secret is stored (never shown)'),
  }),
});

const interceptorView = interceptorSchema.extend({ use: z.union([piiUse, celUse, webhookView]) });

export const guardrailsView = z
  .object({
    interceptors: z.array(interceptorView),
    pushed: z
      .enum(['ok', 'unavailable'])
      .optional()
      .describe('Set by PUT: whether the change reached the gateways now (absent before the first publish)'),
  })
  .describe("The tenant's interceptor chain (webhook secrets never shown)");

export const checkGuardrailsView = z
  .object({
    valid: z.boolean(),
    issues: z
      .array(z.object({ field: z.string(), message: z.string() }))
      .describe('What is wrong, each naming the field (body.interceptors.N…)'),
  })
  .describe('The outcome of compiling a chain without saving it');
