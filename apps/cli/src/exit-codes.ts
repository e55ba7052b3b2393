/**
 * The exit codes scripts can rely on (documented in apps/cli/README.md). Never reused for
 * another meaning: a CI step may branch on them.
 */
export const EXIT = {
  ok: 0,
  /** Anything unexpected (a bug): the message says what. */
  failure: 1,
  /** Bad command line or an invalid tenant file: nothing was sent. */
  usage: 2,
  /** No credential, or the API refused it (401/403). */
  auth: 3,
  /** The API answered 404 (an unknown server, item, …). */
  notFound: 4,
  /** The API refused the request (another 4xx: validation, conflict, hints required). */
  rejected: 5,
  /** The registry could not be reached, timed out or answered 5xx: retrying may help. */
  unavailable: 6,
  /** `apply` stopped part-way: some steps were applied, the report lists which. */
  partial: 7,
  /** `plan --detailed-exitcode`: the plan has changes. */
  changes: 8,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** A failure the CLI reports as one line (and JSON with `--output json`) with a stable exit code. */
export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    message: string,
    readonly exitCode: ExitCode,
    readonly details: { code: string; field?: string; status?: number; issues?: Array<{ field: string; message: string }> },
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A bad command line or file: exit 2, naming the option or field. */
export function usageError(message: string, field?: string): CliError {
  return new CliError(message, EXIT.usage, { code: 'USAGE', ...(field ? { field } : {}) });
}
