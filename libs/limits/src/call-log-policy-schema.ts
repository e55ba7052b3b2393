import { z } from 'zod';

/** Bounds of a call-log policy. */
export const CALL_LOG_BOUNDS = { maxRedactKeys: 100, maxKeyLength: 64, maxRetentionDays: 365 } as const;

/** The validated shape of `limits.callLog` (TenantCallLogPolicy of @switchboard/catalog). */
export const callLogPolicySchema = z
  .object({
    captureArguments: z.boolean().optional(),
    captureResults: z.boolean().optional(),
    redactKeys: z.array(z.string().min(1).max(CALL_LOG_BOUNDS.maxKeyLength)).max(CALL_LOG_BOUNDS.maxRedactKeys).optional(),
    retentionDays: z.number().int().min(1).max(CALL_LOG_BOUNDS.maxRetentionDays).optional(),
  })
  .strict();
