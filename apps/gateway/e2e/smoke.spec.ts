import { createGateway } from '../src/create-gateway';
import { loadGatewayConfig } from '../src/config/config';
import path from 'node:path';
test('smoke', async () => {
  const config = loadGatewayConfig({ TENANTS_FILE: path.join(__dirname, '../../../config/tenants.yaml'), LOG_LEVEL: 'silent' });
  const app = await createGateway(config);
  const f = app.getHttpAdapter().getInstance();
  const h = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  let r = await f.inject({ method: 'POST', url: '/t/demo/mcp', headers: h, payload: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } } });
  console.log(r.statusCode, r.body.slice(0, 500));
  r = await f.inject({ method: 'POST', url: '/t/demo/mcp', headers: { ...h, 'mcp-protocol-version': '2025-11-25' }, payload: { jsonrpc: '2.0', id: 2, method: 'tools/list' } });
  console.log(r.statusCode, r.body.slice(0, 800));
  r = await f.inject({ method: 'POST', url: '/t/demo/mcp', headers: { ...h, 'mcp-protocol-version': '2025-11-25' }, payload: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } } });
  console.log(r.statusCode, r.body.slice(0, 800));
  await app.close();
});
