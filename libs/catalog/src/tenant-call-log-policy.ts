/**
 * What a tenant's call log keeps, carried in the tenant document as `limits.callLog`: by default
 * only metadata (time, caller, tool, outcome, duration, bytes). Arguments and results are
 * captured only when the tenant opts in, redacted at the gateway (before they leave it) by
 * key name, and truncated.
 */
export interface TenantCallLogPolicy {
  captureArguments?: boolean;
  captureResults?: boolean;
  /** Extra key names (case-insensitive) whose values are replaced by "[redacted]" anywhere in the captured JSON, beside the built-in set. */
  redactKeys?: string[];
  /** Days the registry keeps call records (the registry's default when absent). */
  retentionDays?: number;
}
