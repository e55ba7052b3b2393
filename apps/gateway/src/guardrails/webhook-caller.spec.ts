import { createHmac } from 'node:crypto';
import { listenLoopback, type LoopbackServer } from '@switchboard/testing';
import { BrokenCircuitError } from 'cockatiel';
import { WebhookStatusError, webhookCaller } from './webhook-caller';

const SECRET = `whsec_${Buffer.from('a-webhook-signing-key').toString('base64')}`;
let server: LoopbackServer;
let status = 200;
const seen: Array<{ headers: Record<string, string | string[] | undefined>; body: string }> = [];

beforeAll(async () => {
  server = await listenLoopback(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += (chunk as Buffer).toString();
    seen.push({ headers: req.headers, body });
    if (req.url === '/redirect') res.writeHead(307, { location: '/ok' }).end();
    else res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ valid: true }));
  });
});

afterAll(() => server?.stop());

const hook = (path: string) => ({ url: server.url.replace(/\/mcp$/, path), timeoutMs: 5_000, maxBytes: 1_024, secret: SECRET });

describe('webhookCaller', () => {
  it('signs each request the Standard Webhooks way and parses the answer', async () => {
    const call = webhookCaller({ allowHosts: ['127.0.0.1'], breaker: { failureThreshold: 2, openMs: 60_000 } });
    expect(await call(hook('/ok'), 'signed', { name: 'signed' })).toEqual({ valid: true });
    const { headers, body } = seen.at(-1)!;
    const key = Buffer.from(SECRET.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key)
      .update(`${String(headers['webhook-id'])}.${String(headers['webhook-timestamp'])}.${body}`)
      .digest('base64');
    expect(headers['webhook-signature']).toBe(`v1,${expected}`);
    expect(JSON.parse(body)).toEqual({ name: 'signed' });
  });

  it('refuses plain http to a host the operator did not allow, and redirects', async () => {
    const strict = webhookCaller({ allowHosts: [], breaker: { failureThreshold: 5, openMs: 60_000 } });
    await expect(strict(hook('/ok'), 'strict', {})).rejects.toThrow(/http|scheme|https|allowed|blocked/i);
    const call = webhookCaller({ allowHosts: ['127.0.0.1'], breaker: { failureThreshold: 5, openMs: 60_000 } });
    await expect(call(hook('/redirect'), 'redirect', {})).rejects.toThrow(/redirect/i);
  });

  it('opens a breaker per webhook after consecutive failures, so a dead endpoint is not called again', async () => {
    const call = webhookCaller({ allowHosts: ['127.0.0.1'], breaker: { failureThreshold: 2, openMs: 60_000 } });
    status = 500;
    try {
      await expect(call(hook('/down'), 'flaky', {})).rejects.toThrow(WebhookStatusError);
      await expect(call(hook('/down'), 'flaky', {})).rejects.toThrow(WebhookStatusError);
      const before = seen.length;
      await expect(call(hook('/down'), 'flaky', {})).rejects.toThrow(BrokenCircuitError);
      expect(seen.length).toBe(before);
      // Another interceptor's breaker is its own.
      status = 200;
      expect(await call(hook('/down'), 'other', {})).toEqual({ valid: true });
    } finally {
      status = 200;
    }
  });
});
