import { z } from 'zod';

/**
 * Bounds of a tenant's interceptor chain: every replica compiles and runs it per call, so its
 * size is the tenant's to choose only within these.
 */
export const GUARDRAILS_BOUNDS = { interceptors: 20, rules: 50, exprChars: 2000, messageChars: 500, matchEntries: 100, selectorChars: 128 } as const;

const name = z
  .string()
  .regex(/^[a-z0-9](?:[a-z0-9_-]{0,62})$/, 'must be 1-63 chars of a-z 0-9 _ - starting with a letter or digit')
  .describe('Unique in the chain; shown to callers in a denial');

// Non-empty by refinement, not .min(1): the generated client types stay plain arrays, not tuples.
const nonEmpty = <T>(list: T[]) => list.length > 0;
const selectors = z
  .array(z.string().min(1).max(GUARDRAILS_BOUNDS.selectorChars))
  .max(GUARDRAILS_BOUNDS.matchEntries)
  .refine(nonEmpty, 'must list at least one entry (leave the key out to match all)');

const match = z
  .object({
    servers: selectors.optional().describe('Server ids; absent = every server'),
    tools: selectors.optional().describe('Exposed tool names (a trailing * matches a prefix); absent = every tool'),
  })
  .strict()
  .describe('Which calls the interceptor sees (absent = all)');

const celRule = z
  .object({
    name,
    expr: z.string().min(1).max(GUARDRAILS_BOUNDS.exprChars).describe('A CEL expression over caller, tool, args and now; true = the rule matches (denies)'),
    message: z.string().min(1).max(GUARDRAILS_BOUNDS.messageChars).optional().describe('The reason a denial gives'),
  })
  .strict();

const piiUse = z
  .object({
    builtin: z.literal('pii'),
    detectors: z.array(z.string().min(1).max(64)).max(32).optional().describe('Which detectors run (absent = all of them)'),
    nationalIds: z.array(z.string().min(1).max(32)).max(32).optional().describe('National-id shapes to look for, by country'),
    replacement: z.string().max(64).optional().describe('What a redacted match becomes (default [REDACTED:<kind>])'),
  })
  .strict();

const celUse = z.object({ builtin: z.literal('cel'), rules: z.array(celRule).max(GUARDRAILS_BOUNDS.rules).refine(nonEmpty, 'must hold at least one rule') }).strict();

const webhookUse = z
  .object({
    webhook: z
      .object({
        url: z.url({ protocol: /^https?$/ }).max(2048).describe('HTTPS endpoint (SSRF-checked when saved)'),
        timeoutMs: z.number().int().min(50).max(10_000).default(2000),
        maxBytes: z.number().int().min(1024).max(1_048_576).default(65_536),
        secret: z
          .string()
          .min(16)
          .max(256)
          .optional()
          .describe('Signing secret (write-only, sealed at rest); omit to keep the one stored for this interceptor name'),
      })
      .strict(),
  })
  .strict();

/** The `use` branch a value means (by its keys), so a refusal names the field inside it rather than the whole union. */
export function useBranch(value: unknown): z.ZodType | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if ('webhook' in value) return webhookUse;
  const builtin = (value as { builtin?: unknown }).builtin;
  return builtin === 'cel' ? celUse : builtin === 'pii' ? piiUse : undefined;
}

export const PHASES = ['tools/call.arguments', 'tools/call.result', 'prompts/get.result', 'resources/read.result'] as const;

export const interceptorInput = z
  .object({
    name,
    kind: z.enum(['validator', 'mutator']).describe('validator: allow or deny with a reason; mutator: rewrite'),
    phase: z.enum(PHASES),
    match: match.optional(),
    mode: z.enum(['enforce', 'audit']).default('enforce').describe('audit: record what would have happened, change nothing'),
    failOpen: z.boolean().default(false).describe('When the interceptor fails (timeout, error): true lets the call through'),
    use: z.union([piiUse, celUse, webhookUse]),
  })
  .strict();

export type InterceptorInput = z.infer<typeof interceptorInput>;

/** `PUT /v1/guardrails`: the whole chain, in order (an empty list removes every interceptor). */
export const putGuardrailsBody = z
  .object({ interceptors: z.array(interceptorInput).max(GUARDRAILS_BOUNDS.interceptors) })
  .strict()
  .describe("The tenant's interceptor chain, in the order it runs");

const webhookView = z.object({
  webhook: z.object({ url: z.string(), timeoutMs: z.number(), maxBytes: z.number(), secretSet: z.boolean().describe('A signing secret is stored (never shown)') }),
});

const interceptorView = interceptorInput.extend({ use: z.union([piiUse, celUse, webhookView]) });

export const guardrailsView = z
  .object({
    interceptors: z.array(interceptorView),
    pushed: z.enum(['ok', 'unavailable']).optional().describe('Set by PUT: whether the change reached the gateways now (absent before the first publish)'),
  })
  .describe("The tenant's interceptor chain (webhook secrets never shown)");

export const checkGuardrailsView = z
  .object({
    valid: z.boolean(),
    issues: z.array(z.object({ field: z.string(), message: z.string() })).describe('What is wrong, each naming the field (body.interceptors.N…)'),
  })
  .describe('The outcome of compiling a chain without saving it');
