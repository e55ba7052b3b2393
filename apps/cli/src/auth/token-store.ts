import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';

/** What `switchboard login` keeps per registry: the platform tokens and where to refresh them. */
export interface StoredLogin {
  issuer: string;
  clientId: string;
  /** The admin API URL the tokens are for (their `aud` / `resource`). */
  resource: string;
  accessToken: string;
  refreshToken?: string;
  /** Epoch ms. */
  expiresAt: number;
}

/** `$SWITCHBOARD_CONFIG_DIR`, else `$XDG_CONFIG_HOME/switchboard`, else `~/.config/switchboard`. */
export function configDir(env: NodeJS.ProcessEnv): string {
  return env.SWITCHBOARD_CONFIG_DIR ?? path.join(env.XDG_CONFIG_HOME ?? path.join(homedir(), '.config'), 'switchboard');
}

const file = (env: NodeJS.ProcessEnv) => path.join(configDir(env), 'credentials.json');

async function readAll(env: NodeJS.ProcessEnv): Promise<Record<string, StoredLogin>> {
  try {
    const parsed: unknown = JSON.parse(await readFile(file(env), 'utf8'));
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, StoredLogin>) : {};
  } catch {
    return {};
  }
}

/** The stored login for a registry URL, if any. */
export async function loadLogin(env: NodeJS.ProcessEnv, registry: string): Promise<StoredLogin | undefined> {
  return (await readAll(env))[registry];
}

/**
 * Saves (or with `undefined`, forgets) the login for a registry URL. The file is written owner-only
 * (0600, directory 0700) and replaced atomically: it holds a refresh token.
 */
export async function saveLogin(env: NodeJS.ProcessEnv, registry: string, login: StoredLogin | undefined): Promise<void> {
  const all = await readAll(env);
  if (login) all[registry] = login;
  else delete all[registry];
  await mkdir(configDir(env), { recursive: true, mode: 0o700 });
  const tmp = `${file(env)}.${process.pid}.tmp`;
  await writeFile(tmp, `${JSON.stringify(all, null, 2)}\n`, { mode: 0o600 });
  await rename(tmp, file(env));
}
