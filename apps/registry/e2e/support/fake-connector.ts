import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Ways to break the fake connector, one per failure the readiness check must name. */
export interface Breakage {
  /** Require `Authorization: Bearer <token>` and serve PRM, AS metadata and DCR. */
  protectedBy?: string;
  /** PRM `resource` other than the connector URL. */
  prmResource?: string;
  /** Answer GET (event stream) with 405. */
  get405?: boolean;
  /** Tools without `annotations.title`. */
  noAnnotationTitle?: boolean;
  /** ChatGPT's `securitySchemes` on every surface, Claude's included. */
  securitySchemesToClaude?: boolean;
  /** A strict 2026-07-28 server: a header version ≠ `_meta` version is −32020 (the Claude quirk fails). */
  strictVersionHeader?: boolean;
  /** DCR answers without `registration_client_uri`. */
  noRegistrationClientUri?: boolean;
}

export interface FakeConnector {
  url: string;
  close(): Promise<void>;
}

type Json = Record<string, unknown>;

/**
 * A small hand-written MCP server (both protocol eras) with an optional OAuth front
 * (PRM, RFC 8414 metadata, DCR), correct by default and broken on request — the gateway
 * itself has no breakage switches.
 */
export async function startFakeConnector(breakage: Breakage = {}): Promise<FakeConnector> {
  let origin = '';
  let mcpUrl = '';
  const tool = (): Json => ({
    name: 'search_docs',
    title: 'Search docs',
    description: 'Searches the docs',
    inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
    annotations: {
      ...(breakage.noAnnotationTitle ? {} : { title: 'Search docs' }),
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
    ...(breakage.securitySchemesToClaude
      ? { securitySchemes: [{ type: 'noauth' }], _meta: { securitySchemes: [{ type: 'noauth' }] } }
      : {}),
  });

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  };

  const rpc = (res: ServerResponse, req: IncomingMessage, msg: Json) => {
    const id = msg.id;
    const params = (msg.params ?? {}) as Json;
    const meta = (params._meta ?? {}) as Json;
    const metaVersion = meta['io.modelcontextprotocol/protocolVersion'];
    const header = req.headers['mcp-protocol-version'];
    if (breakage.strictVersionHeader && typeof metaVersion === 'string' && header !== undefined && header !== metaVersion) {
      return send(res, 400, {
        jsonrpc: '2.0',
        id,
        error: {
          code: -32020,
          message: `MCP-Protocol-Version header ${String(header)} does not match _meta protocolVersion ${metaVersion}`,
        },
      });
    }
    if (id === undefined) return void res.writeHead(202).end();
    switch (msg.method) {
      case 'server/discover':
        return send(res, 200, {
          jsonrpc: '2.0',
          id,
          result: {
            supportedVersions: ['2025-11-25', '2026-07-28'],
            capabilities: { tools: {} },
            serverInfo: { name: 'fake', version: '1.0.0' },
          },
        });
      case 'initialize':
        return send(res, 200, {
          jsonrpc: '2.0',
          id,
          result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'fake', version: '1.0.0' } },
        });
      case 'tools/list':
        return send(res, 200, { jsonrpc: '2.0', id, result: { tools: [tool()] } });
      default:
        return send(res, 200, { jsonrpc: '2.0', id, error: { code: -32601, message: `method ${String(msg.method)} not found` } });
    }
  };

  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', origin).pathname;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      if (path === '/mcp') {
        if (breakage.protectedBy && req.headers.authorization !== `Bearer ${breakage.protectedBy}`) {
          return send(
            res,
            401,
            { error: 'invalid_token' },
            { 'www-authenticate': `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"` },
          );
        }
        if (req.method === 'GET') {
          if (breakage.get405) return void res.writeHead(405, { allow: 'POST' }).end();
          res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
          res.write(': heartbeat\n\n');
          return;
        }
        if (req.method !== 'POST') return void res.writeHead(405, { allow: 'GET, POST' }).end();
        let msg: Json;
        try {
          msg = JSON.parse(body) as Json;
        } catch {
          return send(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } });
        }
        return rpc(res, req, msg);
      }
      if (!breakage.protectedBy) return send(res, 404, { error: 'not_found' });
      if (path === '/.well-known/oauth-protected-resource/mcp')
        return send(res, 200, {
          resource: breakage.prmResource ?? mcpUrl,
          authorization_servers: [origin],
          bearer_methods_supported: ['header'],
        });
      if (path === '/.well-known/oauth-authorization-server') {
        return send(res, 200, {
          issuer: origin,
          authorization_endpoint: `${origin}/authorize`,
          token_endpoint: `${origin}/token`,
          registration_endpoint: `${origin}/register`,
          response_types_supported: ['code'],
          code_challenge_methods_supported: ['S256'],
          client_id_metadata_document_supported: true,
        });
      }
      if (path === '/register' && req.method === 'POST') {
        const id = randomBytes(6).toString('hex');
        const meta = JSON.parse(body) as Json;
        return send(res, 201, {
          ...meta,
          client_id: id,
          ...(breakage.noRegistrationClientUri
            ? {}
            : { registration_client_uri: `${origin}/register/${id}`, registration_access_token: 'rat' }),
        });
      }
      if (path.startsWith('/register/') && req.method === 'DELETE') return void res.writeHead(204).end();
      return send(res, 404, { error: 'not_found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  mcpUrl = `${origin}/mcp`;
  return {
    url: mcpUrl,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
