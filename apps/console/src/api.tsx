// The admin API client. Every module in src/ is .tsx so the repo's Node-only typecheck
// (which globs apps/*/src/**/*.ts) never sees browser code; this package has its own tsconfig.

const KEY_STORAGE = 'switchboard.apiKey';

/** An error answered by the admin API (`{"error": {"code", "message", "field"}}`), or a network failure (status 0). */
export class ApiError extends Error {
  override readonly name = 'ApiError';

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The offending field as the API names it (`body.url`, `body.items.0.exposedName`, `query.surface`). */
    readonly field?: string,
    /** Every invalid field of a validation error (`details.issues`), first one = `field`. */
    readonly issues: Array<{ field: string; message: string }> = [],
  ) {
    super(message);
  }

  /** Form field → message, for every field the API named (the `body.x: ` prefix dropped: the message sits beside the field). */
  fieldErrors(): Record<string, string> {
    const out: Record<string, string> = {};
    const all = this.issues.length > 0 ? this.issues : this.field ? [{ field: this.field, message: this.message }] : [];
    for (const i of all) {
      const f = i.field.replace(/^(body|query|params)\./, '');
      if (!f || f === 'body' || f in out) continue;
      out[f] = i.message.startsWith(`${i.field}: `) ? i.message.slice(i.field.length + 2) : i.message;
    }
    return out;
  }

  /** The form field this error belongs to: `body.url` → `url`; undefined when it names no single field. */
  formField(): string | undefined {
    if (!this.field || this.field === 'body') return undefined;
    return this.field.replace(/^(body|query|params)\./, '');
  }
}

/** The tenant API key of this tab (sessionStorage: gone when the tab closes). */
export const session = {
  key(): string | null {
    try {
      return sessionStorage.getItem(KEY_STORAGE);
    } catch {
      return null;
    }
  },
  set(key: string): void {
    sessionStorage.setItem(KEY_STORAGE, key);
  },
  clear(): void {
    sessionStorage.removeItem(KEY_STORAGE);
  },
};

type Listener = () => void;
const unauthorizedListeners = new Set<Listener>();

/** Called when any request answers 401 (key revoked or wrong): the app returns to sign-in. */
export function onUnauthorized(fn: Listener): () => void {
  unauthorizedListeners.add(fn);
  return () => unauthorizedListeners.delete(fn);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Calls the admin API with the session key (or `key`); resolves to the parsed JSON body or throws ApiError. */
export async function api<T>(method: string, path: string, body?: unknown, key?: string): Promise<T> {
  const token = key ?? session.key();
  const headers: Record<string, string> = { accept: 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (err) {
    throw new ApiError(0, 'NETWORK', `The registry could not be reached (${err instanceof Error ? err.message : String(err)}). Check your connection and try again.`);
  }
  const text = await res.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!res.ok) {
    const e = isRecord(parsed) && isRecord(parsed.error) ? parsed.error : undefined;
    const message = typeof e?.message === 'string' ? e.message : `The registry answered HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}.`;
    const issues = Array.isArray(e?.issues) ? e.issues.filter((i): i is { field: string; message: string } => isRecord(i) && typeof i.field === 'string' && typeof i.message === 'string') : [];
    const err = new ApiError(res.status, typeof e?.code === 'string' ? e.code : 'HTTP', message, typeof e?.field === 'string' ? e.field : undefined, issues);
    if (res.status === 401 && key === undefined) for (const fn of unauthorizedListeners) fn();
    throw err;
  }
  return parsed as T;
}

/** Turns anything thrown into an ApiError (so every page shows one kind of error). */
export function asApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  return new ApiError(0, 'CLIENT', err instanceof Error ? err.message : String(err));
}

// Shapes of the admin API answers the console reads (see the registry's /openapi.json).

export interface Tenant {
  id: string;
  name: string;
  description: string | null;
  currentVersion: string | null;
  mcpUrl: string;
  claudeCommand: string;
}

export interface Server {
  id: string;
  name: string;
  url: string;
  transport: string;
  auth: { mode: string; hasSecret: boolean };
  health: 'pending' | 'ok' | 'error';
  lastError: string | null;
  lastDiscoveredAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface Item {
  kind: 'tool' | 'prompt' | 'resource' | 'resource_template';
  name: string;
  definition: Record<string, unknown>;
  contentHash: string;
  removedAt: string | null;
  exposedName: string | null;
  pendingReview: boolean | null;
}

export interface ToolOverrides {
  title?: string;
  description?: string;
}

export interface Publication {
  kind: string;
  exposedName: string;
  serverId: string;
  upstreamName: string;
  overrides: ToolOverrides;
}

export interface SurfacePreview {
  profile: { id: string; label: string };
  tools: Array<Record<string, unknown>>;
  prompts: Array<Record<string, unknown>>;
}

export interface Preview {
  version: string;
  protocolVersion: string;
  /** Live preview: the gateway serves exactly this. Draft preview: publishing the draft would change nothing. */
  live: boolean;
  /** Set on a draft preview (`POST /v1/preview`): nothing of it is live until published. */
  draft?: boolean;
  /** Draft preview: the snapshot gateways serve now (null before the first publish). */
  liveVersion?: string | null;
  surfaces: Record<string, SurfacePreview>;
}

export type CheckStatus = 'pass' | 'fail' | 'warn' | 'skip';

export interface ReadinessReport {
  url: string;
  ranAt: string;
  summary: Record<CheckStatus, number>;
  checks: Array<{ id: string; title: string; status: CheckStatus; reason: string; fix?: string }>;
}

export interface AuditEntry {
  id: string | number;
  actor: string;
  action: string;
  target: string | null;
  details: Record<string, unknown>;
  at: string;
}
