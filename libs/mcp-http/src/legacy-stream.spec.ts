import { edgeKit } from './testing/edge-kit';
import { guardRequest } from './edge-guard';
import { refuseDelete, serveLegacyStream } from './legacy-stream';

function get(headers: Record<string, string>) {
  const kit = edgeKit({ sseHeartbeatMs: 20, sseMaxLifetimeMs: 120 });
  return kit
    .step({ method: 'GET', url: '/t/acme/mcp', headers }, async (call) => {
      guardRequest(call);
      await serveLegacyStream(call);
    })
    .then((res) => ({ res, refusals: kit.refusals }));
}

describe('serveLegacyStream', () => {
  it('opens a heartbeat-only event stream for a legacy client, ended at its lifetime', async () => {
    const { res } = await get({ accept: 'text/event-stream', 'mcp-protocol-version': '2025-11-25' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream');
    expect(res.body.startsWith(': stream open\n\n')).toBe(true);
    expect(res.body).toContain(': heartbeat\n\n');
  });

  it('answers a GET without Accept: text/event-stream 405, allowing GET and POST', async () => {
    const { res, refusals } = await get({ accept: 'application/json' });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('GET, POST');
    expect(res.json().error.message).toBe('GET needs Accept: text/event-stream');
    expect(refusals).toMatchObject([{ status: 405, httpMethod: 'GET' }]);
  });

  it('answers a 2026-07-28 GET 405, allowing POST only', async () => {
    const { res } = await get({ accept: 'text/event-stream', 'mcp-protocol-version': '2026-07-28' });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('POST');
  });
});

describe('refuseDelete', () => {
  it('answers 405: a stateless server has no session to delete', async () => {
    const kit = edgeKit();
    const res = await kit.step({ method: 'DELETE', url: '/t/acme/mcp' }, (call) => {
      guardRequest(call);
      refuseDelete(call);
    });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('GET, POST');
    expect(res.json().error.message).toBe('Method not allowed: this server is stateless and has no sessions to delete');
  });
});
