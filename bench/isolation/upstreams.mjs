// The two tenants' upstream MCP servers for bench/isolation, built with the official SDK 1.x
// (stateless, a server per POST as the SDK docs show), in one process. Y's is healthy; X's
// misbehaves per tool: hang, crash (an answer broken mid-way), garbage (200 with a non-JSON
// body), big (a 50 MB result), slow (2 s), `match`, whose input schema carries the
// pathological pattern ^(a+)+$, and `flood` (1 MiB progress notifications on an SSE answer). `node upstreams.mjs y|x` starts one of them (separate processes:
// X's 50 MB answers must not starve Y's server, as on separate machines). Prints {"url":…} when ready.
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

const role = process.argv[2];
const FIFTY_MB = role === 'x' ? 'x'.repeat(50 * 1024 * 1024) : ''; // built once: the bench measures the gateway, not string building
const ONE_MIB = role === 'x' ? 'n'.repeat(1024 * 1024) : '';
const FLOOD_COUNT = Number(process.env.FLOOD_NOTIFICATIONS ?? 8);

function healthy() {
  const s = new McpServer({ name: 'y-upstream', version: '1.0.0' });
  s.registerTool('shout', { description: 'Upper-cases its text.', inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: 'text', text: text.toUpperCase() }],
  }));
  return s;
}

const hanging = new Set();
function hostile() {
  const s = new McpServer({ name: 'x-upstream', version: '1.0.0' });
  s.registerTool(
    'hang',
    { description: 'Never answers.', inputSchema: {} },
    (_a, extra) =>
      new Promise((resolve) => {
        const release = () => {
          hanging.delete(release);
          resolve({ content: [{ type: 'text', text: 'released' }] });
        };
        hanging.add(release);
        extra.signal.addEventListener('abort', release, { once: true });
      }),
  );
  s.registerTool('big', { description: 'A 50 MB result.', inputSchema: {} }, async () => ({ content: [{ type: 'text', text: FIFTY_MB }] }));
  s.registerTool(
    'slow',
    { description: 'Answers after 2 s.', inputSchema: {} },
    () => new Promise((r) => setTimeout(() => r({ content: [{ type: 'text', text: 'slow' }] }), 2000)),
  );
  s.registerTool('match', { description: 'Pathological pattern.', inputSchema: { s: z.string().regex(/^(a+)+$/) } }, async ({ s: v }) => ({
    content: [{ type: 'text', text: v }],
  }));
  s.registerTool('crash', { description: 'Breaks mid-answer.', inputSchema: {} }, async () => ({ content: [] }));
  s.registerTool('garbage', { description: 'Not JSON.', inputSchema: {} }, async () => ({ content: [] }));
  // FLOOD_NOTIFICATIONS progress notifications of 1 MiB each (when the caller asked for progress), then a result.
  s.registerTool('flood', { description: 'Floods 1 MiB progress notifications.', inputSchema: {} }, async (_a, extra) => {
    const progressToken = extra._meta?.progressToken;
    if (progressToken !== undefined) {
      for (let i = 1; i <= FLOOD_COUNT; i++)
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken, progress: i, total: FLOOD_COUNT, message: ONE_MIB },
        });
    }
    return { content: [{ type: 'text', text: 'flooded' }] };
  });
  return s;
}

async function readBody(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : undefined;
}

function serve(build, special) {
  return createServer(async (req, res) => {
    try {
      if (req.method !== 'POST') return void res.writeHead(405, { allow: 'POST' }).end();
      const body = await readBody(req);
      if (special && (await special(body, res))) return;
      const server = build();
      // `flood` answers on an SSE stream (its notifications need one); the rest with one JSON body.
      const streamed = body?.method === 'tools/call' && body.params?.name === 'flood';
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !streamed });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    } catch {
      if (!res.headersSent) res.writeHead(500).end();
    }
  });
}

const y = role === 'x' ? undefined : serve(healthy);
const x =
  role !== 'x'
    ? undefined
    : serve(hostile, async (body, res) => {
        const tool = body?.method === 'tools/call' ? body.params?.name : undefined;
        if (tool === 'crash') {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write('{"jsonrpc":"2.0","id":');
          setImmediate(() => res.socket?.destroy());
          return true;
        }
        if (tool === 'garbage') {
          res.writeHead(200, { 'content-type': 'application/json' }).end('<html>not JSON-RPC</html>');
          return true;
        }
        return false;
      });
const server = role === 'x' ? x : y;
await new Promise((r) => server.listen(0, '127.0.0.1', r));
process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.address().port}/mcp` })}\n`);
process.on('SIGTERM', () => {
  for (const r of hanging) r();
  process.exit(0);
});
