import { CliError, EXIT, type ExitCode } from '../exit-codes';
import type { ApiErrorBody } from '@switchboard/admin-api';
import { OPERATIONS, type BodyOf, type OperationId, type ResponseOf } from './operations';

/** Where the registry is and how to authenticate to it (see credentials.ts). */
export interface ApiTarget {
  /** The registry's public URL (`SWITCHBOARD_URL`), without a trailing slash. */
  baseUrl: string;
  /** A tenant API key (`sbk_…`) or a platform access token (a stored login's, refreshed when due): sent as a Bearer token. */
  bearer: () => Promise<string>;
  /** Per-request deadline. */
  timeoutMs: number;
}

export interface CallInput<K extends OperationId> {
  params?: Record<string, string>;
  query?: Record<string, string | number | undefined>;
  body?: BodyOf<K>;
}

/** Bounds what the CLI reads of one answer: the API pages its lists, so more is a broken server. */
const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

/**
 * The admin API as typed calls: `call('getServer', { params: { id } })` answers the generated
 * `Server` type. A refusal becomes a CliError that keeps the API's code and the field it names,
 * with the exit code of its class (auth, not found, rejected, unavailable).
 */
export class ApiClient {
  constructor(private readonly target: ApiTarget) {}

  get baseUrl(): string {
    return this.target.baseUrl;
  }

  async call<K extends OperationId>(op: K, input: CallInput<K> = {}): Promise<ResponseOf<K>> {
    const { method, path } = OPERATIONS[op];
    const url = new URL(this.target.baseUrl + fillPath(path, input.params ?? {}));
    for (const [k, v] of Object.entries(input.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const bearer = await this.target.bearer();
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        headers: {
          authorization: `Bearer ${bearer}`,
          accept: 'application/json',
          ...(input.body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        body: input.body !== undefined ? JSON.stringify(input.body) : undefined,
        signal: AbortSignal.timeout(this.target.timeoutMs),
      });
    } catch (err) {
      const timedOut = (err as Error).name === 'TimeoutError';
      const why = timedOut ? `did not answer within ${this.target.timeoutMs} ms` : 'could not be reached';
      throw new CliError(
        `${method} ${url.pathname}: the registry at ${this.target.baseUrl} ${why}`,
        EXIT.unavailable,
        { code: timedOut ? 'TIMEOUT' : 'UNREACHABLE' },
        { cause: err },
      );
    }
    const text = await readBounded(res);
    const body = text === '' ? undefined : parseJson(text);
    if (!res.ok) throw apiRefusal(method, url.pathname, res.status, body);
    return body as ResponseOf<K>;
  }
}

function fillPath(template: string, params: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`path parameter ${name} missing for ${template}`);
    return encodeURIComponent(value);
  });
}

async function readBounded(res: Response): Promise<string> {
  const declared = Number(res.headers.get('content-length') ?? 0);
  if (declared > MAX_RESPONSE_BYTES)
    throw new CliError(`the registry's answer is ${declared} bytes, over the CLI's ${MAX_RESPONSE_BYTES}`, EXIT.unavailable, {
      code: 'RESPONSE_TOO_LARGE',
    });
  const text = await res.text();
  if (text.length > MAX_RESPONSE_BYTES)
    throw new CliError(`the registry's answer is over the CLI's ${MAX_RESPONSE_BYTES} bytes`, EXIT.unavailable, {
      code: 'RESPONSE_TOO_LARGE',
    });
  return text;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { raw: text.slice(0, 200) };
  }
}

function exitFor(status: number): ExitCode {
  if (status === 401 || status === 403) return EXIT.auth;
  if (status === 404) return EXIT.notFound;
  if (status >= 500) return EXIT.unavailable;
  return EXIT.rejected;
}

/** The API's error as a CliError: its message (which names the field), code, field and issues kept. */
function apiRefusal(method: string, path: string, status: number, body: unknown): CliError {
  const error = (body as Partial<ApiErrorBody> | undefined)?.error;
  if (error && typeof error.message === 'string') {
    return new CliError(error.message, exitFor(status), {
      code: error.code,
      status,
      ...(error.field ? { field: error.field } : {}),
      ...(error.details?.issues ? { issues: error.details.issues } : {}),
    });
  }
  return new CliError(`${method} ${path} answered HTTP ${status}`, exitFor(status), { code: `HTTP_${status}`, status });
}
