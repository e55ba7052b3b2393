import type { GuardedFetch } from '@switchboard/net-guard';

/** A JSON-RPC message as received (result or error). */
export interface RpcMessage {
  id?: unknown;
  result?: Record<string, unknown>;
  error?: { code?: unknown; message?: unknown };
}

/** One HTTP answer, body read (bounded). */
export interface HttpAnswer {
  status: number;
  headers: Headers;
  text: string;
}

/** An answer to a JSON-RPC POST: the HTTP answer and the message with the request's id, when one came back. */
export interface RpcAnswer extends HttpAnswer {
  message?: RpcMessage;
}

/** A request the probe could not complete (network, timeout, SSRF guard, out of scope); `message` is shown to the tenant. */
export class ProbeError extends Error {
  override readonly name = 'ProbeError';
}

const MAX_BODY = 2 * 1024 * 1024;

/**
 * The only way the readiness checks touch the network: every request goes through the
 * SSRF-guarded fetch, has a timeout, never follows redirects (a redirect is reported, not
 * taken), and may only go to the tenant's endpoint or a URL that endpoint advertised
 * (PRM, authorization servers, their metadata endpoints).
 */
export class Probe {
  private readonly allowed = new Set<string>();
  private nextId = 1;

  constructor(
    readonly endpoint: string,
    private readonly fetchFn: GuardedFetch,
    private readonly timeoutMs: number,
  ) {
    this.allowed.add(new URL(endpoint).href);
  }

  /** Marks a URL the endpoint (or its advertised documents) pointed to as reachable. */
  advertise(url: string): void {
    this.allowed.add(new URL(url).href);
  }

  /** Any request to the endpoint or an advertised URL; the body is read up to 2 MiB. */
  async request(url: string, init: { method: string; headers?: Record<string, string>; body?: string }): Promise<HttpAnswer> {
    const href = this.scoped(url);
    const signal = AbortSignal.timeout(this.timeoutMs);
    try {
      const res = await this.fetchFn(href, { method: init.method, headers: init.headers, body: init.body, signal, redirect: 'manual' });
      return { status: res.status, headers: res.headers, text: await readBounded(res) };
    } catch (err) {
      throw this.failure(href, err, signal);
    }
  }

  /** POSTs a JSON-RPC request to the endpoint and picks the response with its id out of a JSON or SSE body. */
  async rpc(method: string, params: Record<string, unknown> | undefined, headers: Record<string, string>): Promise<RpcAnswer> {
    const id = this.nextId++;
    const body = JSON.stringify({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
    const answer = await this.request(this.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body,
    });
    return { ...answer, message: pickMessage(answer, id) };
  }

  /** POSTs a JSON-RPC notification (no answer expected beyond 202). */
  async notify(method: string, headers: Record<string, string>): Promise<HttpAnswer> {
    return this.request(this.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', method }),
    });
  }

  /** Opens a GET stream on the endpoint, keeps only the status and headers and the first bytes, then aborts. */
  async openStream(headers: Record<string, string>): Promise<{ status: number; headers: Headers; firstBytes: string }> {
    const href = this.scoped(this.endpoint);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error('timeout')), this.timeoutMs);
    try {
      const res = await this.fetchFn(href, { method: 'GET', headers, signal: controller.signal, redirect: 'manual' });
      let firstBytes = '';
      const type = res.headers.get('content-type') ?? '';
      // An event stream never ends: no need to wait for bytes. Anything else is read briefly for the report.
      if (!type.startsWith('text/event-stream') && res.body) {
        const reader = res.body.getReader();
        const chunk = await Promise.race([reader.read(), new Promise<undefined>((r) => setTimeout(() => r(undefined), 500).unref())]);
        if (chunk && chunk.value) firstBytes = Buffer.from(chunk.value).toString('utf8').slice(0, 200);
      }
      controller.abort();
      return { status: res.status, headers: res.headers, firstBytes };
    } catch (err) {
      throw this.failure(href, err, controller.signal);
    } finally {
      clearTimeout(timer);
      if (!controller.signal.aborted) controller.abort();
    }
  }

  private scoped(url: string): string {
    let href: string;
    try {
      href = new URL(url).href;
    } catch {
      throw new ProbeError(`"${url}" is not a valid URL`);
    }
    if (!this.allowed.has(href)) throw new ProbeError(`${href} is neither the connector URL nor a URL it advertised; not fetched`);
    return href;
  }

  private failure(url: string, err: unknown, signal: AbortSignal): ProbeError {
    if (err instanceof ProbeError) return err;
    if (signal.aborted) return new ProbeError(`${url} did not answer within ${this.timeoutMs} ms`);
    const e = err as { message?: string; code?: string; cause?: { code?: string; message?: string } };
    const code = e?.code ?? e?.cause?.code;
    const detail = code === 'ECONNREFUSED' ? 'connection refused' : (e?.message ?? String(err));
    return new ProbeError(`${url} could not be reached: ${detail}`);
  }
}

async function readBounded(res: Response): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Buffer[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(Buffer.from(value));
    size += value.byteLength;
    if (size > MAX_BODY) {
      await reader.cancel().catch(() => undefined);
      break;
    }
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The JSON-RPC message answering `id`, from a JSON body or the `data:` lines of an SSE body. */
function pickMessage(answer: HttpAnswer, id: number): RpcMessage | undefined {
  const type = answer.headers.get('content-type') ?? '';
  const candidates: unknown[] = [];
  if (type.startsWith('text/event-stream')) {
    for (const event of answer.text.split(/\r?\n\r?\n/)) {
      const data = event
        .split(/\r?\n/)
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).replace(/^ /, ''))
        .join('\n');
      if (data) candidates.push(parseJson(data));
    }
  } else {
    const parsed = parseJson(answer.text);
    if (Array.isArray(parsed)) candidates.push(...(parsed as unknown[]));
    else candidates.push(parsed);
  }
  const messages = candidates.filter((c): c is RpcMessage => typeof c === 'object' && c !== null && ('result' in c || 'error' in c));
  return messages.find((m) => m.id === id) ?? messages.find((m) => m.id === null || m.id === undefined);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
