import http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import { checkUrl } from './check-url';
import { guardedLookup } from './guarded-lookup';
import { NetGuardError } from './net-guard-error';
import type { NetGuardPolicy } from './net-guard-policy';

/** The fetch signature the MCP SDK transports accept. */
export type GuardedFetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

const MAX_REDIRECTS = 5;

/**
 * The only request headers that survive a redirect to another origin: protocol headers with
 * no secret in them. Everything else — `Authorization`, cookies, and whatever custom header a
 * tenant's credential travels in (`x-api-key`, connector and client-credentials tokens) — is
 * dropped, so a 307 to a second origin never delivers the first origin's credential.
 */
const CROSS_ORIGIN_SAFE = new Set([
  'accept',
  'accept-language',
  'content-type',
  'user-agent',
  'mcp-protocol-version',
  'traceparent',
  'tracestate',
]);

/** Framing and hop-by-hop headers the fetch computes itself; a caller's value is never sent. */
const FRAMING = ['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'te', 'trailer', 'upgrade', 'expect'];

/**
 * A fetch over node:http/https whose sockets resolve through the guarded lookup: every URL
 * (and every redirect target) is checked with `checkUrl`, and the address actually
 * connected to is checked again at connect time. Redirects are followed manually (at most
 * five) unless `init.redirect` is `manual`; a hop to another origin carries only
 * `CROSS_ORIGIN_SAFE` headers (credentials never cross origins). Framing headers (`host`,
 * `content-length`, `transfer-encoding`, …) are always computed here, never taken from the
 * caller. Bodies are streamed (SSE works).
 */
export function guardedFetch(policy: NetGuardPolicy): GuardedFetch {
  const lookup = guardedLookup(policy);
  const agents = {
    'http:': new http.Agent({ keepAlive: true, lookup }),
    'https:': new https.Agent({ keepAlive: true, lookup }),
  };
  return async (input, init = {}) => {
    let url = await checkUrl(input instanceof URL ? input : String(input), policy);
    let method = (init.method ?? 'GET').toUpperCase();
    let body = bodyBytes(init.body);
    const headers = new Headers(init.headers);
    for (let hop = 0; ; hop++) {
      const res = await send(url, method, headers, body, init.signal ?? undefined, agents, lookup);
      const location = res.headers.get('location');
      if (init.redirect === 'manual' || res.status < 300 || res.status > 399 || res.status === 304 || !location) return res;
      await res.body?.cancel().catch(() => undefined);
      if (init.redirect === 'error') throw new TypeError(`redirect from ${url.href} refused (redirect: error)`);
      if (hop >= MAX_REDIRECTS) throw new NetGuardError('NET_GUARD_REDIRECT', `too many redirects from ${url.href}`, { url: url.href });
      const next = new URL(location, url);
      if (next.origin !== url.origin) {
        for (const name of [...headers.keys()]) if (!CROSS_ORIGIN_SAFE.has(name)) headers.delete(name);
      }
      try {
        url = await checkUrl(next, policy);
      } catch (err) {
        const reason = err instanceof Error ? err.message : String(err);
        throw new NetGuardError('NET_GUARD_REDIRECT', `redirect to ${next.href} refused: ${reason}`, { url: next.href }, { cause: err });
      }
      if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
        headers.delete('content-type');
        headers.delete('content-length');
      }
    }
  };
}

function bodyBytes(body: RequestInit['body']): Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof URLSearchParams) return Buffer.from(body.toString(), 'utf8');
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  throw new TypeError('guardedFetch supports string, URLSearchParams and byte bodies only');
}

function send(
  url: URL,
  method: string,
  headers: Headers,
  body: Buffer | undefined,
  signal: AbortSignal | undefined,
  agents: Record<'http:' | 'https:', http.Agent>,
  lookup: ReturnType<typeof guardedLookup>,
): Promise<Response> {
  const mod = url.protocol === 'https:' ? https : http;
  const outHeaders: Record<string, string> = {};
  headers.forEach((value, key) => {
    outHeaders[key] = value;
  });
  for (const name of FRAMING) delete outHeaders[name];
  if (body) outHeaders['content-length'] = String(body.length);
  return new Promise<Response>((resolve, reject) => {
    const req = mod.request(
      url,
      { method, headers: outHeaders, signal, agent: agents[url.protocol as 'http:' | 'https:'], lookup },
      (res) => {
        const status = res.statusCode ?? 502;
        const out = new Headers();
        const raw = res.rawHeaders;
        for (let i = 0; i + 1 < raw.length; i += 2) out.append(raw[i], raw[i + 1]);
        const empty = method === 'HEAD' || status === 204 || status === 304;
        if (empty) res.resume();
        const stream = empty ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
        try {
          resolve(new Response(stream, { status, statusText: res.statusMessage, headers: out }));
        } catch (err) {
          res.destroy();
          reject(err);
        }
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
