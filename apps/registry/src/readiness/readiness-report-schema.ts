import { z } from 'zod';
import { namedSchemas } from '../docs/response-schemas';
import { CHECK_TITLES } from './check-titles';

const status = z.enum(['pass', 'fail', 'warn', 'skip']);

/** The readiness report (OpenAPI response of `POST /v1/tenants/{tenant}/readiness`). */
export const readinessReportSchema = z
  .object({
    url: z.string().meta({ format: 'uri' }).describe('The connector URL that was checked'),
    ranAt: z.string().meta({ format: 'date-time' }),
    summary: z.object({ pass: z.number().int(), fail: z.number().int(), warn: z.number().int(), skip: z.number().int() }),
    checks: z.array(
      z.object({
        id: z.enum(Object.keys(CHECK_TITLES) as [string, ...string[]]),
        title: z.string(),
        status,
        reason: z.string().describe('What was observed; on failure, the exact problem'),
        fix: z.string().describe('What to change').optional(),
        tools: z
          .array(
            z.object({
              name: z.string(),
              field: z.string().describe('The editor field that fixes it: title, annotations-title or a required hint'),
            }),
          )
          .describe('The tools a tool check fails (at most 50), each with the field that fixes it')
          .optional(),
        explain: z
          .string()
          .describe('For a tool a list lacks: the console address of the "Why not visible?" panel (GET /v1/explain)')
          .optional(),
      }),
    ),
  })
  .describe('Each step Claude and ChatGPT take against the MCP URL, as pass / fail / warn / skip with the reason and the fix');

/** The report as the named OpenAPI component `ReadinessReport` (registered here: docs/ never imports a feature folder). */
export const readinessReport = readinessReportSchema.describe('The connector readiness report');
namedSchemas.set('ReadinessReport', readinessReport);
