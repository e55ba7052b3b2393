import { productionSecretProblems, type SecretKind } from './production-secret-problems';

/**
 * The one production-mode secret check every app's config loader runs: undefined outside
 * `SWITCHBOARD_ENV=production` or when every secret passes, else the refusal message naming the
 * service and each offending variable (the loader throws it as its ConfigError, so every app
 * refuses the same way).
 */
export function productionSecretsRefusal(service: string, mode: string, secrets: Record<string, SecretKind>): string | undefined {
  if (mode !== 'production') return undefined;
  const problems = productionSecretProblems(secrets);
  if (problems.length === 0) return undefined;
  return `Invalid ${service} configuration (SWITCHBOARD_ENV=production):\n${problems.map((p) => `  ${p}`).join('\n')}`;
}
