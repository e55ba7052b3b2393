import http from 'node:http';
import { obtainTokens } from '@switchboard/testing';

/** What a client sees from the deployment's public URLs in the boot tests. */
export type Json = Record<string, unknown>;

/**
 * One JSON-RPC request over Streamable HTTP (legacy era, stateless): status, headers and the
 * message (JSON or the first SSE `data:`). A fresh connection each time (no pooled socket), so a
 * test that swaps the process behind a URL reaches the new one.
 */
export async function mcp(
  url: string,
  method: string,
  params: Json = {},
  token?: string,
): Promise<{ status: number; headers: Headers; body: Json }> {
  const payload = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
  const { status, headers, text } = await new Promise<{ status: number; headers: Headers; text: string }>((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const h = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) h.set(k, Array.isArray(v) ? v.join(', ') : v);
          resolve({ status: res.statusCode ?? 0, headers: h, text: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
  const data = headers.get('content-type')?.includes('text/event-stream') ? (/^data: (.*)$/m.exec(text)?.[1] ?? '{}') : text || '{}';
  let body: Json;
  try {
    body = JSON.parse(data) as Json;
  } catch {
    body = { raw: text.slice(0, 500) };
  }
  return { status, headers, body };
}

export const toolNames = (r: { body: Json }): string[] =>
  ((r.body.result as { tools?: Array<{ name: string }> } | undefined)?.tools ?? []).map((t) => t.name);

/** Polls `probe` until it returns a value (deadline; no fixed sleeps). */
export async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(`${what}: not within ${timeoutMs} ms${last ? ` (last error: ${(last as Error).message})` : ''}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

async function json(res: Response): Promise<Json> {
  const text = await res.text();
  try {
    return JSON.parse(text) as Json;
  } catch {
    return { raw: text.slice(0, 500) };
  }
}

/**
 * The README's tenant path through the admin API: the operator creates a tenant, the tenant
 * registers its upstream (bearer credential), waits for discovery and publishes every tool.
 * Returns the tenant's MCP URL as the registry reports it.
 */
export async function publishTenant(
  registry: string,
  operatorKey: string,
  tenant: string,
  upstream: { url: string; token: string },
): Promise<{ mcpUrl: string; tools: string[] }> {
  const created = await fetch(`${registry}/v1/tenants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${operatorKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id: tenant, name: `Boot test ${tenant}` }),
  });
  const createdBody = await json(created);
  if (created.status !== 201) throw new Error(`creating tenant ${tenant}: ${created.status} ${JSON.stringify(createdBody)}`);
  const key = String(createdBody.apiKey);
  const call = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(`${registry}${p}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: await json(res) };
  };
  const server = await call('POST', '/v1/servers', {
    id: 'crm',
    name: 'CRM',
    url: upstream.url,
    auth: { mode: 'bearer', token: upstream.token },
  });
  if (server.status !== 201) throw new Error(`registering ${upstream.url}: ${server.status} ${JSON.stringify(server.body)}`);
  const items = await eventually('discovery of the upstream', async () => {
    const s = await call('GET', '/v1/servers/crm');
    if (s.body.health === 'error') throw new Error(`discovery failed: ${JSON.stringify(s.body)}`);
    if (s.body.health !== 'ok') return undefined;
    return ((await call('GET', '/v1/servers/crm/items')).body.items as Array<{ kind: string; name: string; removedAt: unknown }>).filter(
      (i) => i.kind === 'tool' && !i.removedAt,
    );
  });
  const published = await call('POST', '/v1/publications', { serverId: 'crm', items: items.map((i) => ({ kind: 'tool', name: i.name })) });
  if (published.status !== 200) throw new Error(`publishing: ${published.status} ${JSON.stringify(published.body)}`);
  const connect = await call('GET', '/v1/connect');
  return { mcpUrl: String(connect.body.mcpUrl ?? ''), tools: items.map((i) => i.name) };
}

/**
 * An MCP client's OAuth path from the challenge alone: 401 → WWW-Authenticate
 * `resource_metadata` → PRM → authorization server metadata → dynamic registration →
 * authorize (local login, consent) → token. Returns what it found on the way.
 */
export async function signIn(
  mcpUrl: string,
): Promise<{ challenge: string; prm: Json; asMetadata: Json; asMetadataUrl: string; accessToken: string }> {
  const unauth = await mcp(mcpUrl, 'tools/list');
  if (unauth.status !== 401) throw new Error(`expected 401 from ${mcpUrl}, got ${unauth.status}`);
  const challenge = unauth.headers.get('www-authenticate') ?? '';
  const prmUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
  if (!prmUrl) throw new Error(`no resource_metadata in ${challenge}`);
  const prm = await json(await fetch(prmUrl));
  const issuer = (prm.authorization_servers as string[] | undefined)?.[0];
  if (!issuer) throw new Error(`no authorization_servers in ${JSON.stringify(prm)}`);
  const iu = new URL(issuer);
  const asMetadataUrl = `${iu.origin}/.well-known/oauth-authorization-server${iu.pathname === '/' ? '' : iu.pathname}`;
  const asRes = await fetch(asMetadataUrl);
  const asMetadata = await json(asRes);
  if (asRes.status !== 200 || asMetadata.issuer !== issuer)
    throw new Error(`AS metadata at ${asMetadataUrl}: ${asRes.status} ${JSON.stringify(asMetadata).slice(0, 300)}`);
  const t = await obtainTokens(issuer, { resource: String(prm.resource) });
  if (t.status !== 200) throw new Error(`token request: ${t.status} ${JSON.stringify(t.body)}`);
  return { challenge, prm, asMetadata, asMetadataUrl, accessToken: String(t.body.access_token) };
}
