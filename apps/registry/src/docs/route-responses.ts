import { z } from 'zod';
import {
  adminSchema,
  auditEntrySchema,
  changeSchema,
  enqueuedSchema,
  itemSchema,
  namedSchemas,
  publicationSchema,
  serverSchema,
  tenantSettingsSchema,
} from './response-schemas';
import { callRowSchema, usageRowSchema } from './tenant-response-schemas';

/** The answers of routes that wrap the named schemas (components named after their operationId). */
export const publishResultSchema = z
  .object({ version: z.string(), tools: z.number().int(), redis: z.enum(['ok', 'unavailable']) })
  .describe('A published snapshot');
namedSchemas.set('PublishResult', publishResultSchema);

export const listServersResponse = z.object({ servers: z.array(serverSchema) });
export const serverChangedResponse = z.object({
  server: serverSchema,
  discovery: enqueuedSchema.optional(),
  published: publishResultSchema.optional(),
  warnings: z
    .array(z.object({ code: z.literal('URL_ALREADY_REGISTERED'), field: z.string(), message: z.string() }))
    .optional()
    .describe('Registered, but worth knowing: the URL is already registered under another id (its tools would be served twice)'),
});
export const itemsResponse = z.object({ items: z.array(itemSchema) });
export const publicationsResponse = z.object({ publications: z.array(publicationSchema) });
export const publishItemsResponse = z.intersection(
  publishResultSchema,
  z.object({ items: z.array(z.object({ exposedName: z.string() })) }),
);
export const changesResponse = z.object({ changes: z.array(changeSchema) });
export const auditResponse = z.object({
  entries: z.array(auditEntrySchema),
  nextCursor: z.string().nullable().describe('Pass as `cursor` for the next (older) page; null on the last page'),
});
export const adminsResponse = z.object({ admins: z.array(adminSchema) });
export const tenantUpdatedResponse = z.intersection(
  tenantSettingsSchema,
  z.object({ published: publishResultSchema.nullable().optional() }),
);
export const usageResponse = z.object({
  usage: z.array(usageRowSchema),
  nextOffset: z.number().int().nullable().optional(),
  groupBy: z.string().optional(),
});
export const callsResponse = z.object({
  calls: z.array(callRowSchema),
  nextCursor: z.string().nullable(),
  /** `withheld`: the caller's role is below admin, so rows come without `arguments` / `result`. */
  captures: z.enum(['included', 'withheld']),
});
