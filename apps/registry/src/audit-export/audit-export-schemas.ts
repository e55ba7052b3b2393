import { z } from 'zod';
import { namedSchemas } from '../docs/response-schemas';
import type { AuditExportRow } from './audit-export-store';

/** Path segments of URL-safe characters, none starting with a dot (so no `..`), optionally ending in `/`. */
const PREFIX = /^(?:[A-Za-z0-9_-][A-Za-z0-9_.-]{0,62}\/)*(?:[A-Za-z0-9_-][A-Za-z0-9_.-]{0,62})?$/;

/** PUT /v1/audit-export. `secretAccessKey` is required the first time; left out later, the stored one is kept. */
export const putAuditExportBody = z
  .object({
    endpoint: z
      .string()
      .min(1)
      .max(2_048)
      .refine(
        (v) => URL.canParse(v) && !new URL(v).search && !new URL(v).hash,
        'must be an absolute URL without query or fragment (e.g. https://s3.eu-west-1.amazonaws.com)',
      ),
    bucket: z.string().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be an S3 bucket name: 3-63 chars of a-z 0-9 . -'),
    region: z
      .string()
      .regex(/^[a-z0-9-]{1,32}$/, 'must be a region name such as us-east-1')
      .default('us-east-1'),
    prefix: z
      .string()
      .max(256)
      .regex(PREFIX, 'must be path segments of A-Z a-z 0-9 _ . - separated by /, none starting with a dot')
      .default(''),
    pathStyle: z.boolean().default(true),
    accessKeyId: z.string().regex(/^[\x21-\x7e]{1,128}$/, 'must be 1-128 printable ASCII characters'),
    secretAccessKey: z
      .string()
      .regex(/^[\x21-\x7e]{1,256}$/, 'must be 1-256 printable ASCII characters')
      .optional(),
    enabled: z.boolean().default(true),
  })
  .strict();

export type PutAuditExport = z.infer<typeof putAuditExportBody>;

/** The stored prefix: empty, or ending in exactly one `/`. */
export function normalisePrefix(prefix: string): string {
  const p = prefix.replace(/\/+$/, '');
  return p ? `${p}/` : '';
}

const dateTime = z.string().meta({ format: 'date-time' });

export const auditExportViewSchema = z
  .object({
    configured: z.boolean(),
    enabled: z.boolean().optional(),
    sink: z.literal('s3').optional(),
    endpoint: z.string().optional(),
    bucket: z.string().optional(),
    region: z.string().optional(),
    prefix: z.string().optional(),
    pathStyle: z.boolean().optional(),
    accessKeyId: z.string().optional(),
    /** Never the value: only that one is stored. */
    secretAccessKeySet: z.boolean().optional(),
    status: z.enum(['pending', 'ok', 'error']).optional(),
    lastError: z.string().nullable().optional(),
    lastErrorAt: dateTime.nullable().optional(),
    lastExportAt: dateTime.nullable().optional(),
    nextAttemptAt: dateTime.optional(),
    exported: z.number().int().optional(),
    cursor: z.object({ id: z.number().int() }).optional(),
  })
  .describe(
    '`GET`/`PUT /v1/audit-export`: the sink, its state (status, lastError) and how far the export got; `configured: false` alone when none',
  );
namedSchemas.set('AuditExportView', auditExportViewSchema);

/** The API's view of a stored export: settings without the secret, state, and the cursor. */
export function auditExportView(row: AuditExportRow | undefined): z.infer<typeof auditExportViewSchema> {
  if (!row) return { configured: false };
  return {
    configured: true,
    enabled: row.enabled,
    sink: 's3',
    endpoint: row.endpoint,
    bucket: row.bucket,
    region: row.region,
    prefix: row.prefix,
    pathStyle: row.path_style,
    accessKeyId: row.access_key_id,
    secretAccessKeySet: true,
    status: row.status,
    lastError: row.last_error,
    lastErrorAt: row.last_error_at?.toISOString() ?? null,
    lastExportAt: row.last_export_at?.toISOString() ?? null,
    nextAttemptAt: row.next_attempt_at.toISOString(),
    exported: Number(row.exported),
    cursor: { id: Number(row.cursor_id) },
  };
}
