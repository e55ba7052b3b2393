import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/**
 * Answers one POST with `server` on a fresh stateless transport (a server per POST, as the SDK
 * docs show); both are closed when the response is. `json`: one JSON body instead of an SSE stream.
 */
export async function serveStateless(
  server: McpServer,
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
  o: { json?: boolean; onClose?: () => void } = {},
): Promise<void> {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, ...(o.json ? { enableJsonResponse: true } : {}) });
  res.on('close', () => {
    void transport.close();
    void server.close();
    o.onClose?.();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}

/**
 * Calls of a `hang` tool: each never answers until the client cancels it or the test upstream
 * stops (`releaseAll`), so stopping leaves no dangling promise.
 */
export class HangingCalls {
  private readonly pending = new Set<() => void>();

  hold(signal: AbortSignal): Promise<CallToolResult> {
    return new Promise((resolve) => {
      const release = () => {
        this.pending.delete(release);
        resolve({ content: [{ type: 'text', text: 'released' }] });
      };
      this.pending.add(release);
      signal.addEventListener('abort', release, { once: true });
    });
  }

  releaseAll(): void {
    for (const release of this.pending) release();
    this.pending.clear();
  }
}
