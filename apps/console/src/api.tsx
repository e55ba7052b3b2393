// The admin API client. Every module in src/ is .tsx so the repo's Node-only typecheck
// (which globs apps/*/src/**/*.ts) never sees browser code; this package has its own tsconfig.

import type { AuthConfig, ReadinessReport } from './api-types';

const KEY_STORAGE = 'switchboard.apiKey';

/** One invalid field of an error (`details.issues`). */
export interface FieldIssue {
  field: string;
  message: string;
}

/** An error answered by the admin API (`{"error": {"code", "message", "field", "details"}}`), or a network failure (status 0). */
export class ApiError extends Error {
  override readonly name = 'ApiError';

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The offending field as the API names it (`body.url`, `body.items.0.exposedName`, `query.surface`). */
    readonly field?: string,
    /** Every invalid field of a validation error (`details.issues`), first one = `field`. */
    readonly issues: FieldIssue[] = [],
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
      out[f] = humanize(i.message.startsWith(`${i.field}: `) ? i.message.slice(i.field.length + 2) : i.message);
    }
    return out;
  }

  /** The form field this error belongs to: `body.url` → `url`; undefined when it names no single field. */
  formField(): string | undefined {
    if (!this.field || this.field === 'body') return undefined;
    return this.field.replace(/^(body|query|params)\./, '');
  }
}

/** Validator phrasings the API passes through, in words a person acts on (anything else is kept: it is already a sentence). */
const HUMAN: ReadonlyArray<[RegExp, string]> = [
  [/^invalid url$/i, 'Enter a full URL with its scheme, e.g. https://mcp.example.com/mcp.'],
  [/^required$/i, 'This field is required.'],
  [/^invalid input: expected number, received (null|undefined|nan)$/i, 'Enter a number, or leave the field empty for the default.'],
  [/^(invalid input: )?expected number, received string$/i, 'Enter a number.'],
  [/^invalid input: expected string, received (null|undefined)$/i, 'This field is required.'],
  [/^too big: expected string to have <=(\d+) characters$/i, 'Use at most $1 characters.'],
  [/^too small: expected string to have >=1 characters$/i, 'This field is required.'],
  [/^too big: expected number to be <=(\d+)$/i, 'Must be at most $1.'],
  [/^too small: expected number to be >=(\d+)$/i, 'Must be at least $1.'],
  [/^too small: expected number to be >0$/i, 'Must be more than 0.'],
  [/^invalid input: expected number, received (null|undefined|NaN)$/i, 'Enter a number.'],
  [/^invalid input: expected int, received number$/i, 'Enter a whole number.'],
];

/** One API field message as the console shows it. */
export function humanize(message: string): string {
  for (const [re, text] of HUMAN) if (re.test(message)) return message.replace(re, text);
  return message;
}

/**
 * How this tab is signed in. `cookie`: the registry's HttpOnly console session (platform OAuth, BFF
 * style: the browser never holds a token). `key`: a tenant API key pasted by the user, kept in
 * sessionStorage for the tab and sent as a Bearer token.
 */
let mode: 'cookie' | 'key' | 'none' = 'none';
/** The key when sessionStorage refuses to store it (it then lasts until the tab reloads). */
let memoryKey: string | null = null;

/** The sign-in state of this tab. */
export const session = {
  key(): string | null {
    try {
      return sessionStorage.getItem(KEY_STORAGE) ?? memoryKey;
    } catch {
      return memoryKey;
    }
  },
  mode(): 'cookie' | 'key' | 'none' {
    return mode;
  },
  useCookie(): void {
    mode = 'cookie';
  },
  useKey(key: string): void {
    try {
      sessionStorage.setItem(KEY_STORAGE, key);
    } catch {
      // Storage refused (private mode): the key still works until the tab reloads.
      memoryKey = key;
    }
    mode = 'key';
  },
  clear(): void {
    mode = 'none';
    memoryKey = null;
    try {
      sessionStorage.removeItem(KEY_STORAGE);
    } catch {
      // Nothing was stored either.
    }
  },
};

type Listener = () => void;
const unauthorizedListeners = new Set<Listener>();

/** Called when any request answers 401 (session ended, key revoked): the app returns to sign-in. */
export function onUnauthorized(fn: Listener): () => void {
  unauthorizedListeners.add(fn);
  return () => unauthorizedListeners.delete(fn);
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function issuesOf(e: Record<string, unknown> | undefined): FieldIssue[] {
  // The contract puts them in `details.issues`; older registries spread details into the error.
  const details = isRecord(e?.details) ? e.details : undefined;
  const raw = Array.isArray(details?.issues) ? details.issues : Array.isArray(e?.issues) ? e.issues : [];
  return raw.filter((i): i is FieldIssue => isRecord(i) && typeof i.field === 'string' && typeof i.message === 'string');
}

/** Options of one call. */
export interface ApiOptions {
  /** Sign in with this key instead of the tab's session (the sign-in form checks a key this way). */
  key?: string;
  /** Send no credentials but the cookie (checking for a console session). */
  cookieOnly?: boolean;
  /** A 401 is an expected answer here: do not send the app back to sign-in. */
  quiet401?: boolean;
  /** Resolve to the body's text as it came (a CSV download) instead of parsed JSON. */
  raw?: boolean;
}

/** Calls the admin API with the tab's credentials; resolves to the parsed JSON body or throws ApiError. */
export async function api<T>(method: string, path: string, body?: unknown, opts: ApiOptions = {}): Promise<T> {
  const token = opts.cookieOnly ? null : (opts.key ?? (mode === 'key' ? session.key() : null));
  // The registry accepts a console cookie session only with this header (a cross-site form cannot set it).
  const headers: Record<string, string> = { accept: 'application/json', 'x-switchboard-console': '1' };
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(path, { method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (err) {
    throw new ApiError(
      0,
      'NETWORK',
      `The registry could not be reached (${err instanceof Error ? err.message : String(err)}). Check your connection and try again.`,
    );
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
    const message =
      typeof e?.message === 'string' ? e.message : `The registry answered HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}.`;
    const err = new ApiError(
      res.status,
      typeof e?.code === 'string' ? e.code : 'HTTP',
      message,
      typeof e?.field === 'string' ? e.field : undefined,
      issuesOf(e),
    );
    if (res.status === 401 && !opts.quiet401 && opts.key === undefined && !opts.cookieOnly) for (const fn of unauthorizedListeners) fn();
    throw err;
  }
  if (opts.raw) return text as T;
  return parsed as T;
}

/** Turns anything thrown into an ApiError (so every page shows one kind of error). */
export function asApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  return new ApiError(0, 'CLIENT', err instanceof Error ? err.message : String(err));
}

/** `GET /console/auth.json`: whether platform OAuth sign-in is offered. A registry without it (404, bad JSON) offers only API keys. */
export async function loadAuthConfig(): Promise<AuthConfig> {
  try {
    const res = await fetch('/console/auth.json', { headers: { accept: 'application/json' }, credentials: 'same-origin' });
    if (!res.ok) return { oauth: false, loginUrl: DEFAULT_LOGIN };
    const body: unknown = await res.json();
    if (!isRecord(body)) return { oauth: false, loginUrl: DEFAULT_LOGIN };
    // Only a same-origin path: the sign-in button must never send the browser elsewhere.
    const loginUrl = typeof body.loginUrl === 'string' && /^\/[^/\\]/.test(body.loginUrl) ? body.loginUrl : DEFAULT_LOGIN;
    return { oauth: body.oauth === true, loginUrl };
  } catch {
    return { oauth: false, loginUrl: DEFAULT_LOGIN };
  }
}
const DEFAULT_LOGIN = '/console/login';

/** Ends the console cookie session (`POST /console/logout`); a failure still signs the tab out. */
export async function logout(): Promise<void> {
  try {
    await fetch('/console/logout', { method: 'POST', headers: { 'x-switchboard-console': '1' }, credentials: 'same-origin' });
  } catch {
    // The cookie may outlive a failed call; the registry expires it.
  }
}

// Shapes of the admin API answers the console reads: generated from the registry's /openapi.json
// (`npm run gen:api` rewrites api-types.ts; a registry test fails when the two drift).

export type {
  Admin,
  AnnotationOverrides,
  AuditEntry,
  AuthConfig,
  AuthMode,
  Change,
  DiffEntry,
  Discovery,
  Item,
  Operations,
  PoisonFinding,
  Preview,
  Publication,
  ReadinessReport,
  Server,
  SessionInfo,
  SurfacePreview,
  Tenant,
  TenantSettings,
  ToolOverrides,
  ToolProblem,
  UnsupportedPattern,
  UrlCheckResult,
} from './api-types';

export type CheckStatus = ReadinessReport['checks'][number]['status'];
