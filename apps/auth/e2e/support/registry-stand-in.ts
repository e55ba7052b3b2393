import { createServer, type IncomingMessage, type Server } from 'node:http';
import { freePort } from './auth-harness';

/** One request the stand-in received, as it arrived. */
export interface VerifyLoginCall {
  method: string;
  path: string;
  authorization: string | undefined;
  contentType: string | undefined;
  /** The raw body text and its JSON parse (undefined when not JSON). */
  raw: string;
  body: unknown;
}

export interface StandInRegistry {
  /** Base URL for REGISTRY_INTERNAL_URL. */
  url: string;
  calls: VerifyLoginCall[];
  /** Accounts by `<tenant>|<username>`. */
  accounts: Map<string, { password: string; name: string }>;
  /** 'down' ⇒ every call answers 503. */
  mode: 'up' | 'down';
  close(): Promise<void>;
}

/**
 * A stand-in for the registry's internal verify-login endpoint, exactly as the contract
 * defines it: `POST /internal/console/verify-login`, `Authorization: Bearer <INTERNAL_TOKEN>`,
 * JSON `{tenant, username, password}` ⇒ 200 `{ok: true, tenant, username, name}` or
 * 401 `{ok: false}`. Every request is recorded so tests can assert what auth sent.
 */
export async function startRegistryStandIn(internalToken: string): Promise<StandInRegistry> {
  const port = await freePort();
  const state: StandInRegistry = {
    url: `http://127.0.0.1:${port}`,
    calls: [],
    accounts: new Map(),
    mode: 'up',
    close: async () => undefined,
  };
  const server: Server = createServer((req, res) => {
    void readBody(req).then((raw) => {
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        body = undefined;
      }
      state.calls.push({
        method: req.method ?? '',
        path: req.url ?? '',
        authorization: req.headers.authorization,
        contentType: req.headers['content-type'],
        raw,
        body,
      });
      const send = (status: number, payload: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(payload));
      };
      if (req.method !== 'POST' || req.url !== '/internal/console/verify-login') return send(404, { error: 'not found' });
      if (req.headers.authorization !== `Bearer ${internalToken}`) return send(403, { error: 'internal token required' });
      if (state.mode === 'down') return send(503, { error: 'unavailable' });
      const b = (body ?? {}) as Record<string, unknown>;
      const account = state.accounts.get(`${String(b.tenant)}|${String(b.username)}`);
      if (!account || account.password !== b.password) return send(401, { ok: false });
      return send(200, { ok: true, tenant: b.tenant, username: b.username, name: account.name });
    });
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
  state.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return state;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
