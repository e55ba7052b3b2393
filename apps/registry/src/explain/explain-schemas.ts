import { z } from 'zod';
import { EXPLAIN_RULES } from './explain-types';

/** Bounds of what a caller may say about itself (scopes, groups, capabilities) and of the all-tools answer. */
export const EXPLAIN_LIMITS = { listItems: 64, itemLength: 256, tools: 200 } as const;

/** A space- or comma-separated list in one query parameter. */
const list = (what: string) =>
  z
    .string()
    .max(EXPLAIN_LIMITS.listItems * (EXPLAIN_LIMITS.itemLength + 1))
    .transform((s) => s.split(/[\s,]+/).filter(Boolean))
    .refine((a) => a.length <= EXPLAIN_LIMITS.listItems, `at most ${EXPLAIN_LIMITS.listItems} ${what}`)
    .refine(
      (a) => a.every((x) => x.length <= EXPLAIN_LIMITS.itemLength),
      `each of the ${what} is at most ${EXPLAIN_LIMITS.itemLength} characters`,
    );

export const explainQuery = z
  .object({
    /** The exposed (or upstream) tool name; left out: every tool of the tenant that this surface does not list. */
    tool: z.string().min(1).max(256).optional(),
    surface: z
      .string()
      .regex(/^[a-z0-9-]{1,32}$/, 'must be a surface id ([a-z0-9-]{1,32})')
      .default('generic'),
    version: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a protocol version like 2025-11-25')
      .default('2025-11-25'),
    /** A user of the tenant directory: its status, and its directory (SCIM) groups when `groups` is left out. */
    subject: z
      .string()
      .regex(/^[A-Za-z0-9._@-]{1,64}$/, 'must be a directory user name')
      .optional(),
    /** The token's scopes (space or comma separated). */
    scopes: list('scopes').optional(),
    /** The user's enterprise IdP groups. */
    groups: list('groups').optional(),
    /** Client capabilities the client declares (`sampling`, `elicitation`, `elicitation.url`, `roots`, `tasks`). */
    capabilities: list('capabilities').optional(),
  })
  .strict();

const stepSchema = z.object({
  rule: z.enum(EXPLAIN_RULES),
  stage: z.enum(['publish', 'list', 'call']),
  verdict: z.enum(['pass', 'warn', 'hide', 'refuse', 'conditional', 'skip']),
  input: z.record(z.string(), z.unknown()),
  message: z.string(),
  fix: z.object({ label: z.string(), href: z.string() }).optional(),
});

const toolExplanationSchema = z.object({
  tool: z.string(),
  server: z.string().optional(),
  upstreamName: z.string().optional(),
  surface: z.string(),
  version: z.string(),
  listed: z.boolean(),
  callable: z.enum(['yes', 'no', 'depends']),
  rules: z.array(stepSchema),
});

export const explainResponse = z.object({
  surface: z.string(),
  version: z.string(),
  /** The explained tools: the asked one, or every tool the surface does not list (at most 200). */
  tools: z.array(toolExplanationSchema),
  truncated: z.boolean(),
});
