/**
 * The gateway the bad-input specs share: the demo and forty-tool tenants, a 64 KiB body limit
 * and short legacy SSE lifetimes. Every answer is checked for the invariants bad input must keep
 * (no 500, no stack trace).
 */
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { FIXTURE_40, LEGACY, POST_HEADERS, expectNoStack, startGateway, type TestGateway } from './support/harness';

export const BODY_LIMIT = 64 * 1024;
export const URL_DEMO = '/t/demo/mcp';

export const legacyHeaders = (version = LEGACY): Record<string, string> => ({ ...POST_HEADERS, 'mcp-protocol-version': version });

export interface BadInputEdge {
  /** The running gateway (set once the spec file's beforeAll ran). */
  readonly gw: TestGateway;
  /** Injects a request and checks the invariants every answer shares. */
  send(options: InjectOptions): Promise<LightMyRequestResponse>;
  post(payload: unknown, headers?: Record<string, string>, url?: string): Promise<LightMyRequestResponse>;
}

/** Starts the shared gateway before the calling spec file's tests and closes it after them. */
export function useBadInputGateway(): BadInputEdge {
  let gw: TestGateway | undefined;
  beforeAll(async () => {
    gw = await startGateway({
      tenants: [
        { id: 'demo', name: 'Demo', catalogs: [{ builtin: 'demo' }] },
        { id: 'big', name: 'Forty tools', catalogs: [{ fixture: FIXTURE_40 }] },
      ],
      env: { GATEWAY_BODY_LIMIT: String(BODY_LIMIT), SSE_HEARTBEAT_MS: '200', SSE_MAX_LIFETIME_MS: '1000' },
      listen: true,
    });
  });
  afterAll(async () => {
    await gw?.close();
  });
  const edge: BadInputEdge = {
    get gw(): TestGateway {
      if (!gw) throw new Error('the bad-input gateway has not started');
      return gw;
    },
    async send(options) {
      const res = await edge.gw.inject(options);
      expect(res.statusCode).not.toBe(500);
      expectNoStack(res.body);
      return res;
    },
    post(payload, headers = { ...POST_HEADERS }, url = URL_DEMO) {
      return edge.send({ method: 'POST', url, headers, payload: typeof payload === 'string' ? payload : JSON.stringify(payload) });
    },
  };
  return edge;
}
