import { LEGACY, POST_HEADERS, edgeKit, kitTarget, rpc } from './testing/edge-kit';
import { authenticateRequest, guardRequest, toolDenied } from './edge-guard';
import type { AuthOutcome } from './auth-outcome';

describe('guardRequest', () => {
  it('sets the target of a known tenant and lets the request on, synchronously', async () => {
    const kit = edgeKit();
    let ok: boolean | Promise<boolean> | undefined;
    let tenant: string | undefined;
    await kit.step({ method: 'POST', url: '/t/acme/mcp' }, (call) => {
      ok = guardRequest(call);
      tenant = call.target?.tenantId;
    });
    expect(ok).toBe(true);
    expect(tenant).toBe('acme');
  });

  it('answers 404 naming an unknown tenant, and records the refusal', async () => {
    const kit = edgeKit();
    const res = await kit.step({ method: 'POST', url: '/t/nobody/mcp' }, (call) => void guardRequest(call), 'nobody');
    expect(res.statusCode).toBe(404);
    expect(res.json().error.message).toBe('Unknown tenant: nobody');
    expect(kit.refusals).toMatchObject([{ tenantId: undefined, status: 404, httpMethod: 'POST', route: '/t/:tenant/mcp' }]);
  });

  it('refuses a Host outside the allow-list and an Origin outside the allowed ones (403)', async () => {
    const kit = edgeKit({
      targets: [kitTarget('acme', { allowedHosts: ['mcp.example.com'], allowedOrigins: ['https://app.example.com'] })],
    });
    const host = await kit.step({ method: 'POST', url: '/t/acme/mcp', headers: { host: 'evil.test' } }, (call) => void guardRequest(call));
    expect(host.statusCode).toBe(403);
    expect(host.json().error.message).toBe('Host not allowed: evil.test');
    const origin = await kit.step(
      { method: 'POST', url: '/t/acme/mcp', headers: { host: 'mcp.example.com', origin: 'https://evil.test' } },
      (call) => void guardRequest(call),
    );
    expect(origin.statusCode).toBe(403);
    expect(origin.json().error.message).toBe('Origin not allowed: https://evil.test');
    expect(kit.refusals.map((r) => [r.tenantId, r.status])).toEqual([
      ['acme', 403],
      ['acme', 403],
    ]);
  });
});

describe('authenticateRequest', () => {
  const denied: AuthOutcome = { ok: false, status: 401, headers: { 'www-authenticate': 'Bearer realm="x"' }, body: '{"error":"no"}' };

  it('is synchronous and open when the policy has no authenticate hook', async () => {
    const kit = edgeKit();
    let outcome: unknown;
    await kit.step({ method: 'POST', url: '/t/acme/mcp' }, (call) => {
      guardRequest(call);
      outcome = authenticateRequest(call);
    });
    expect(outcome).toBe(true);
  });

  it('sets the caller a policy granted, also when it answers later', async () => {
    const kit = edgeKit({ policy: { authenticate: async () => ({ ok: true, subject: 'u1', scopes: ['tools'] }) } });
    let subject: string | undefined;
    await kit.step({ method: 'POST', url: '/t/acme/mcp' }, async (call) => {
      guardRequest(call);
      const pending = authenticateRequest(call);
      expect(pending).toBeInstanceOf(Promise);
      expect(await pending).toBe(true);
      subject = call.auth?.subject;
    });
    expect(subject).toBe('u1');
  });

  it('sends a denial as the policy wrote it and records the refusal', async () => {
    const kit = edgeKit({ policy: { authenticate: () => denied } });
    const res = await kit.step({ method: 'GET', url: '/t/acme/mcp' }, (call) => {
      guardRequest(call);
      expect(authenticateRequest(call)).toBe(false);
    });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="x"');
    expect(res.body).toBe('{"error":"no"}');
    expect(kit.refusals).toMatchObject([{ tenantId: 'acme', status: 401, httpMethod: 'GET' }]);
  });
});

describe('toolDenied', () => {
  it('asks the policy about tools/call only, and only for a verified caller', async () => {
    const asked: string[] = [];
    const kit = edgeKit({
      policy: {
        authenticate: () => ({ ok: true, scopes: [] }),
        authorizeTool: (_t, tool) => (
          asked.push(tool),
          tool === 'echo' ? { ok: false, status: 403, headers: {}, body: 'scope' } : undefined
        ),
      },
    });
    const results: unknown[] = [];
    await kit.step(
      { method: 'POST', url: '/t/acme/mcp', headers: { ...POST_HEADERS, 'mcp-protocol-version': LEGACY }, payload: rpc('tools/list') },
      (call) => {
        guardRequest(call);
        results.push(toolDenied(call, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo' } }));
        results.push(toolDenied(call, { jsonrpc: '2.0', id: 2, method: 'tools/list' }));
        void authenticateRequest(call);
        results.push(toolDenied(call, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo' } }));
        results.push(toolDenied(call, { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'other' } }));
      },
    );
    expect(results).toEqual([undefined, undefined, { ok: false, status: 403, headers: {}, body: 'scope' }, undefined]);
    expect(asked).toEqual(['echo', 'other']);
  });
});
