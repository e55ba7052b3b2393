import { CliError, EXIT } from '../exit-codes';
import type { SecretRef } from './tenant-file-schema';

/** A secret's value from the environment at apply time; a missing variable is a usage error naming the file's field. */
export function resolveSecret(env: NodeJS.ProcessEnv, ref: SecretRef, field: string): string {
  const value = env[ref.fromEnv];
  if (value === undefined || value === '') {
    throw new CliError(`${field}: environment variable ${ref.fromEnv} is not set`, EXIT.usage, { code: 'SECRET_MISSING', field });
  }
  return value;
}

/** Replaces every `{ fromEnv }` reference under `value` with `(secret from env NAME)`: what plans show. */
export function describeSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(describeSecrets);
  if (typeof value !== 'object' || value === null) return value;
  const keys = Object.keys(value);
  if (keys.length === 1 && keys[0] === 'fromEnv') return `(secret from env ${(value as SecretRef).fromEnv})`;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, describeSecrets(v)]));
}

/** Every secret reference under `value`, with its dotted field path. */
export function secretRefs(value: unknown, field: string): Array<{ env: string; field: string }> {
  if (typeof value !== 'object' || value === null) return [];
  const keys = Object.keys(value);
  if (!Array.isArray(value) && keys.length === 1 && keys[0] === 'fromEnv') return [{ env: (value as SecretRef).fromEnv, field }];
  return Object.entries(value).flatMap(([k, v]) => secretRefs(v, `${field}.${k}`));
}

/** A copy of `value` with every secret reference replaced by its value from the environment. */
export function withSecrets<T>(env: NodeJS.ProcessEnv, value: T, field: string): T {
  if (typeof value !== 'object' || value === null) return value;
  const keys = Object.keys(value);
  if (!Array.isArray(value) && keys.length === 1 && keys[0] === 'fromEnv')
    return resolveSecret(env, value as unknown as SecretRef, field) as T;
  if (Array.isArray(value)) return value.map((v, i) => withSecrets(env, v, `${field}.${i}`)) as T;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withSecrets(env, v, `${field}.${k}`)])) as T;
}
