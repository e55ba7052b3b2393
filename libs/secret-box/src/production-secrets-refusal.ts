import type { DeploymentMode } from './deployment-mode';
import { productionSecretProblems, type SecretKind } from './production-secret-problems';

/**
 * The one production-mode secret check every app's config loader runs: undefined outside
 * production or when every secret passes, else one refusal message naming the service, why it
 * runs as production (`deploymentMode`) and each offending variable (the loader throws it as
 * its ConfigError, so every app refuses the same way). A bare `production` / `development`
 * string is SWITCHBOARD_ENV as set.
 */
export function productionSecretsRefusal(
  service: string,
  mode: DeploymentMode | string,
  secrets: Record<string, SecretKind>,
): string | undefined {
  const { env, reason } = typeof mode === 'string' ? { env: mode, reason: `SWITCHBOARD_ENV=${mode}` } : mode;
  if (env !== 'production') return undefined;
  const problems = productionSecretProblems(secrets);
  if (problems.length === 0) return undefined;
  return `Invalid ${service} configuration (${reason}):\n${problems.map((p) => `  ${p}`).join('\n')}`;
}
