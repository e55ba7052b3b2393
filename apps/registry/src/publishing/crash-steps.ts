/**
 * Steps of a publish where `REGISTRY_CRASH_AT` (test-only fault injection) kills the process:
 * before the publish transaction, after the publication rows are written (uncommitted), after
 * the snapshot row (uncommitted), after the commit (before Redis), after the Redis push (before the reply).
 */
export const CRASH_STEPS = ['before-publish', 'after-rows', 'after-snapshot', 'after-commit', 'after-push'] as const;

/** One of CRASH_STEPS. */
export type CrashStep = (typeof CRASH_STEPS)[number];
