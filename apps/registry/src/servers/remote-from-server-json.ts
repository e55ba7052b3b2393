import { ApiError } from '../http/api-error';
import type { ImportServerInput } from './import-server-body';

interface KeyValue {
  name: string;
  isRequired?: boolean;
  isSecret?: boolean;
  value?: string;
}

interface Remote {
  type: 'streamable-http' | 'sse';
  url: string;
  headers?: KeyValue[];
  variables?: Record<string, { default?: string; isRequired?: boolean }>;
}

/** The remote chosen from a (schema-valid) server.json, with its URL template resolved. */
export interface ChosenRemote {
  index: number;
  transport: 'streamable-http' | 'sse';
  url: string;
}

/**
 * Picks the remote to register (remote servers only: a package-only server is refused naming
 * `remotes`), fills its URL `{variables}` from the body or their defaults, and checks that a
 * required header the server declares has a credential in `body.auth`.
 */
export function remoteFromServerJson(server: { remotes?: Remote[] }, input: ImportServerInput): ChosenRemote {
  const remotes = server.remotes ?? [];
  if (remotes.length === 0)
    throw new ApiError(
      422,
      'VALIDATION',
      'registry.server.remotes: this server has no remotes (only packages to run locally); only remote servers can be registered',
      'registry.server.remotes',
    );
  const wanted = input.transport ? [input.transport] : (['streamable-http', 'sse'] as const);
  let index = -1;
  for (const t of wanted) {
    index = remotes.findIndex((r) => r.type === t);
    if (index >= 0) break;
  }
  if (index < 0)
    throw new ApiError(
      422,
      'VALIDATION',
      `body.transport: the server has no ${input.transport} remote (it offers ${remotes.map((r) => r.type).join(', ')})`,
      'body.transport',
    );
  const remote = remotes[index] as Remote;
  const url = remote.url.replace(/\{([^{}]+)\}/g, (_m, name: string) => {
    const value = input.variables?.[name] ?? remote.variables?.[name]?.default;
    if (value === undefined)
      throw new ApiError(400, 'VALIDATION', `body.variables.${name}: the remote URL needs a value for {${name}}`, `body.variables.${name}`);
    return encodeURIComponent(value);
  });
  const required = (remote.headers ?? []).find((h) => h.isRequired && h.value === undefined);
  if (required && input.auth.mode === 'none') {
    throw new ApiError(
      400,
      'VALIDATION',
      `body.auth: the server requires the ${required.name} header${required.isSecret ? ' (a secret)' : ''}; give it as auth (bearer or header)`,
      'body.auth',
    );
  }
  return { index, transport: remote.type, url };
}
