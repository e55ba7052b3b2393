// A separate process standing in for the chain-reader in the telemetry e2e test (the
// chain-reader app has no runnable main yet): telemetry started first, then a stateless
// MCP server (official SDK) with `get_uniswap_v3_pool`, which does what the chain-reader
// does per call: a cache lookup and one RPC batch, each recorded with the shared
// instruments and the batch as a CLIENT span. Prints `listening <port>` when ready.
'use strict';
const { startTelemetry, switchboardMetrics, withClientSpan } = require('@switchboard/telemetry');

const telemetry = startTelemetry({ serviceName: 'chain-reader', serviceVersion: '0.1.0' });

const http = require('node:http');
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { StreamableHTTPServerTransport } = require('@modelcontextprotocol/sdk/server/streamableHttp.js');
const { z } = require('zod');

function buildServer() {
  const server = new McpServer({ name: 'chain-reader-stand-in', version: '0.1.0' });
  server.registerTool(
    'get_uniswap_v3_pool',
    { description: 'Uniswap v3 pool panel', inputSchema: { pool: z.string() } },
    async ({ pool }) => {
      const m = switchboardMetrics().chain;
      m.cacheLookups.add(1, { kind: 'pool_panel', result: 'miss' });
      const calls = 4;
      await withClientSpan('rpc eth_call multicall3', { 'rpc.system': 'jsonrpc', 'rpc.method': 'eth_call', 'switchboard.chain': 'devnet', 'switchboard.rpc.batch_size': calls, 'switchboard.cache.hit': false }, async () => {
        m.batchSize.record(calls, { chain: 'devnet' });
        m.rpcRequests.add(1, { chain: 'devnet', method: 'eth_call', outcome: 'ok' });
        m.rpcDuration.record(0.002, { chain: 'devnet', method: 'eth_call', outcome: 'ok' });
      });
      return { content: [{ type: 'text', text: `pool ${pool}: ok` }] };
    },
  );
  return server;
}

const httpServer = http.createServer(async (req, res) => {
  if (req.url === '/metrics') {
    res.writeHead(200, { 'content-type': 'text/plain' }).end(await telemetry.metricsText());
    return;
  }
  if (req.method !== 'POST') {
    res.writeHead(405).end();
    return;
  }
  const server = buildServer();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res);
});

httpServer.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening ${httpServer.address().port}\n`);
});

process.on('SIGTERM', () => {
  httpServer.close();
  telemetry.shutdown().finally(() => process.exit(0));
});
