/**
 * Issue 46 item 3: a CEL policy rule over the caller's groups, at a built gateway (child
 * process, file tenant protected by OAuth) in front of an SDK-built upstream. The tokens are
 * shaped like apps/auth's and carry a `groups` claim; a stand-in JWKS server signs them (the
 * gateway only ever sees the JWKS and the token, as in bench/gateway's auth fixture).
 */
import { createServer, type Server } from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { listenLoopback, readJsonBody, serveStateless, spawnApp, type LoopbackServer, type Proc } from '@switchboard/testing';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { stringify } from 'yaml';
import { z } from 'zod';
import { LEGACY, POST_HEADERS, finalMessage, httpPost } from './support/harness';

const TENANT = 'payments';
const PUBLIC_URL = 'http://gateway.test';
const RULE = 'tool.name == "refund" && args.amount > 500 && !("finance" in caller.groups)';

let dir: string;
let upstream: LoopbackServer;
let jwks: Server;
let gateway: Proc;
let mint: (groups: string[]) => Promise<string>;
const refunds: unknown[] = [];

async function startJwks(): Promise<string> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
  jwks = createServer((req, res) => {
    if (req.url === `/t/${TENANT}/jwks`) res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
  const address = jwks.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  mint = (groups) =>
    new SignJWT({ tid: TENANT, client_id: 'e2e-client', scope: 'mcp:tools', groups })
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: jwk.kid })
      .setIssuer(`${base}/t/${TENANT}`)
      .setAudience(`${PUBLIC_URL}/t/${TENANT}/mcp`)
      .setSubject(`${TENANT}|${groups.join('-') || 'nobody'}`)
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(privateKey);
  return base;
}

beforeAll(async () => {
  upstream = await listenLoopback(async (req, res) => {
    const body = await readJsonBody(req);
    const server = new McpServer({ name: 'billing', version: '1.0.0' });
    server.registerTool('refund', { description: 'Refund an order', inputSchema: { amount: z.number() } }, async ({ amount }) => {
      refunds.push(amount);
      return { content: [{ type: 'text', text: `refunded ${amount}` }] };
    });
    await serveStateless(server, req, res, body, { json: true });
  });
  const authUrl = await startJwks();
  dir = await mkdtemp(path.join(tmpdir(), 'sb-guardrails-cel-'));
  const policy = {
    name: 'refund-policy',
    type: 'validation',
    hook: { events: ['tools/call'], phase: 'request' },
    use: { builtin: 'cel', rules: [{ name: 'big-refunds', expr: RULE, message: 'refunds over 500 need the finance group' }] },
  };
  const tenants = [
    {
      id: TENANT,
      name: 'Payments',
      auth: { protected: true, scopes: ['mcp:tools'] },
      catalogs: [{ upstream: { id: 'billing', url: upstream.url } }],
      guardrails: { interceptors: [policy] },
    },
  ];
  const file = path.join(dir, 'tenants.yaml');
  await writeFile(file, stringify({ tenants }));
  gateway = await spawnApp(
    'gateway',
    'apps/gateway/dist/main.js',
    { TENANTS_FILE: file, GATEWAY_PORT: '0', LOG_LEVEL: 'warn', AUTH_PUBLIC_URL: authUrl, GATEWAY_PUBLIC_URL: PUBLIC_URL },
    /gateway listening on (http:\/\/\S+)/,
    60_000,
  );
}, 90_000);

afterAll(async () => {
  await gateway?.stop();
  await upstream?.stop();
  await new Promise((resolve) => jwks?.close(resolve));
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function refund(groups: string[], amount: number): Promise<{ isError?: boolean; text: string }> {
  const headers = { ...POST_HEADERS, 'mcp-protocol-version': LEGACY, authorization: `Bearer ${await mint(groups)}` };
  const res = await httpPost(
    `${gateway.url}/t/${TENANT}/mcp`,
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'refund', arguments: { amount } } },
    headers,
  );
  expect(res.status).toBe(200);
  const result = finalMessage(res).result as { isError?: boolean; content: Array<{ text: string }> };
  return { isError: result.isError, text: result.content.map((c) => c.text).join('\n') };
}

test('a refund over 500 is denied to a caller outside the finance group, and never reaches the upstream', async () => {
  const before = refunds.length;
  expect(await refund(['support'], 900)).toEqual({
    isError: true,
    text: 'Denied by interceptor "refund-policy": refunds over 500 need the finance group',
  });
  expect(refunds.slice(before)).toEqual([]);
});

test('the same refund goes through for a caller in the finance group, and a small one for anyone', async () => {
  expect(await refund(['support', 'finance'], 900)).toEqual({ isError: undefined, text: 'refunded 900' });
  expect(await refund([], 20)).toEqual({ isError: undefined, text: 'refunded 20' });
});
