import { listenLoopback, type LoopbackServer } from '@switchboard/testing';

/** The official registry's metadata of a listed version, as `registry.modelcontextprotocol.io` answers it. */
const official = {
  'io.modelcontextprotocol.registry/official': {
    status: 'active',
    publishedAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
    isLatest: true,
  },
};

/**
 * A local MCP Registry serving official-format answers (`GET /v0.1/servers/{name}/versions/{version}`
 * → `{ server, _meta }`) for the documents a test puts in `servers`; `huge` answers past the import's
 * byte bound and `slow` never answers.
 */
export class LocalMcpRegistry {
  readonly servers = new Map<string, Record<string, unknown>>();
  readonly requests: string[] = [];
  private server?: LoopbackServer;
  /** `http://localhost:<port>` (localhost is the test allow-list). */
  url = '';

  async start(): Promise<this> {
    this.server = await listenLoopback(async (req, res) => {
      this.requests.push(req.url ?? '');
      const m = /^\/v0\.1\/servers\/([^/]+)\/versions\/([^/?]+)$/.exec(req.url ?? '');
      const name = m ? decodeURIComponent(m[1] as string) : '';
      if (name === 'io.example/slow') return; // never answers
      if (name === 'io.example/huge') {
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ server: { name, description: 'x'.repeat(400_000) } }));
        return;
      }
      const doc = this.servers.get(name);
      if (!m || !doc || (m[2] !== 'latest' && m[2] !== doc.version)) {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'Server not found' }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ server: doc, _meta: official }));
    });
    this.url = `http://localhost:${this.server.port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.http.closeAllConnections();
    await this.server?.stop();
  }
}
