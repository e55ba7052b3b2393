import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

/** The parts of docker-compose.yml the boot test reads. */
export interface ComposeService {
  environment?: Record<string, string>;
  ports?: string[];
  expose?: string[];
  depends_on?: Record<string, unknown> | string[];
  build?: { dockerfile: string };
  image?: string;
  volumes?: string[];
  healthcheck?: unknown;
}
export interface ComposeFile {
  services: Record<string, ComposeService>;
}

export function readCompose(file: string): ComposeFile {
  return parse(readFileSync(file, 'utf8'), { merge: true }) as ComposeFile;
}

/** `${VAR:-default}` resolves to its default (what `docker compose up` uses with nothing set); `${VAR}` without one is an error. */
export function resolveDefaults(value: string, where: string): string {
  return String(value).replace(/\$\{([A-Z0-9_]+)(:-([^}]*))?\}/g, (_m, name: string, _d, def: string | undefined) => {
    if (def === undefined) throw new Error(`${where}: \${${name}} has no default`);
    return def;
  });
}

/** A service's environment with defaults resolved. */
export function serviceEnv(compose: ComposeFile, service: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(compose.services[service]?.environment ?? {}).map(([k, v]) => [k, resolveDefaults(v, `${service}.${k}`)]),
  );
}

/** Published ports of a service: `{ hostIp, host, container }` (from `[ip:]host:container`). */
export function publishedPorts(compose: ComposeFile, service: string): Array<{ hostIp: string; host: number; container: number }> {
  return (compose.services[service]?.ports ?? []).map((p) => {
    const parts = resolveDefaults(p, `${service}.ports`).split(':');
    const container = Number(parts.pop());
    const host = Number(parts.pop());
    return { hostIp: parts.pop() ?? '0.0.0.0', host, container };
  });
}

/** Every port a service listens on inside the network: its published container ports and `expose`. */
export function containerPorts(compose: ComposeFile, service: string): number[] {
  return [
    ...new Set([...publishedPorts(compose, service).map((p) => p.container), ...(compose.services[service]?.expose ?? []).map(Number)]),
  ];
}
