import { authorizeUrl, TestBrowser } from '@switchboard/testing';
import { startPlatform, type Platform } from './platform';

export const CLAUDE = 'https://claude.ai/api/mcp/auth_callback';
export const POST_MCP = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
};
export const LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });

/** Auth and gateway with acme (scoped tools), beta and an open tenant: the setting of every security spec. */
export async function startSecurityPlatform(): Promise<{ p: Platform; acme: string; beta: string }> {
  const p = await startPlatform({
    env: { DCR_RATE_LIMIT_PER_MIN: '1000' },
    tenants: [
      {
        id: 'acme',
        name: 'Acme',
        auth: {
          scopes: ['mcp:tools', 'mcp:tools:read', 'mcp:tools:write'],
          defaultScopes: ['mcp:tools:read'],
          toolScopes: { add_numbers: ['mcp:tools:write'] },
        },
      },
      { id: 'beta', name: 'Beta', auth: { scopes: ['mcp:tools'] } },
      { id: 'open', name: 'Open' },
    ],
  });
  return { p, acme: p.auth.issuer('acme'), beta: p.auth.issuer('beta') };
}

/** The first hop of an authorization request (no redirects followed). */
export function authorizeFirstHop(issuer: string, params: Parameters<typeof authorizeUrl>[1]): Promise<Response> {
  return new TestBrowser().get(authorizeUrl(issuer, params));
}
