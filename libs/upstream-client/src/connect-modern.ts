import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode, LATEST_MODERN_VERSION } from '@switchboard/protocol';
import { connectOrClose, declared, page, transportInit } from './connect-shared';
import { modernTaskRequest } from './modern-task-request';
import type { ConnectUpstreamOptions, RelayedMethod, UpstreamConnection } from './upstream-connection';

/** A Standard Schema taking any result as is (the v2 client validates spec results by method otherwise; see `complete`). */
const ANY_RESULT = { '~standard': { version: 1, vendor: 'switchboard', validate: (value: unknown) => ({ value }) } } as const;

type ModernSdk = typeof import('@modelcontextprotocol/client');
let modernSdk: ModernSdk | undefined;

/**
 * The SDK v2 client loads when the first 2026-07-28 upstream connects: a gateway whose
 * tenants all run legacy servers never holds its code and schemas.
 */
function loadModernSdk(): ModernSdk {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- deliberate lazy load, see above
  return (modernSdk ??= require('@modelcontextprotocol/client') as ModernSdk);
}

export async function connectModern(o: ConnectUpstreamOptions): Promise<UpstreamConnection> {
  const { Client: ModernClient, StreamableHTTPClientTransport: ModernTransport } = loadModernSdk();
  const client = new ModernClient(o.clientInfo, {
    versionNegotiation: { mode: { pin: LATEST_MODERN_VERSION } },
    capabilities: declared(o),
  });
  for (const [method, answer] of Object.entries(o.answer ?? {})) {
    client.setRequestHandler(
      method as RelayedMethod,
      async (request: { params?: unknown }) => (await answer((request.params ?? {}) as Record<string, unknown>)) as never,
    );
  }
  const transport = new ModernTransport(new URL(o.url), transportInit(o));
  await connectOrClose(client, transport, o);
  return {
    era: 'modern',
    transport: 'streamable-http',
    protocolVersion: client.getNegotiatedProtocolVersion() ?? LATEST_MODERN_VERSION,
    serverInfo: client.getServerVersion(),
    capabilities: client.getServerCapabilities() ?? {},
    sessionId: () => undefined,
    callTool: (params, opts) => client.callTool(params, opts),
    readResource: (params, opts) => client.readResource(params, opts),
    getPrompt: (params, opts) => client.getPrompt(params, opts),
    complete: (params, opts) => client.request({ method: 'completion/complete', params }, ANY_RESULT, opts),
    // The tasks extension (SEP-2663): declared on these requests only, never on plain calls.
    taskRequest: (method, params, _session, opts) =>
      method === 'tasks/result'
        ? Promise.reject(new McpError(ErrorCode.MethodNotFound, 'tasks/result does not exist in the 2026-07-28 tasks extension'))
        : modernTaskRequest(
            {
              url: o.url,
              ...(o.headers ? { headers: o.headers } : {}),
              ...(o.fetch ? { fetch: o.fetch } : {}),
              clientInfo: o.clientInfo,
              capabilities: declared(o),
            },
            method,
            params,
            opts,
          ),
    setLoggingLevel: async () => undefined,
    subscribeResource: async () => undefined,
    // `request`, not `listTools()`: without a cursor the v2 client walks and caches every page itself.
    listPage: async (method, cursor, opts) =>
      page((await client.request({ method, params: cursor === undefined ? {} : { cursor } }, opts)) as Record<string, unknown>, method),
    close: () => client.close(),
  };
}
