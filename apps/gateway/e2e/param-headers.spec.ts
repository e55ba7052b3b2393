/**
 * SEP-2243 through the real gateway: a 2026-07-28 tools/call of a tool that mirrors an
 * argument into `Mcp-Param-*` must carry that header with the body's value (400 + −32020
 * otherwise), before the tool runs; legacy requests are not bound by it.
 */
import {
  LEGACY,
  POST_HEADERS,
  json,
  modernHeaders,
  modernRequest,
  rpcError,
  rpcResult,
  startGateway,
  type TestGateway,
} from './support/harness';

let gw: TestGateway;

beforeAll(async () => {
  gw = await startGateway({ tenants: [{ id: 'conf', name: 'Conformance', catalogs: [{ builtin: 'conformance' }] }] });
});

afterAll(async () => {
  await gw?.close();
});

const call = (region: string | undefined, header: string | undefined) =>
  gw.inject({
    method: 'POST',
    url: '/t/conf/mcp',
    headers: { ...modernHeaders('tools/call', 'test_header_params'), ...(header === undefined ? {} : { 'mcp-param-region': header }) },
    payload: JSON.stringify(
      modernRequest(1, 'tools/call', { name: 'test_header_params', arguments: region === undefined ? {} : { region } }),
    ),
  });

test('a matching header (literal or Base64 sentinel) is served', async () => {
  expect(JSON.stringify(rpcResult(await call('eu-west', 'eu-west')))).toContain('region=eu-west');
  expect(JSON.stringify(rpcResult(await call('Zürich', `=?base64?${Buffer.from('Zürich').toString('base64')}?=`)))).toContain(
    'region=Zürich',
  );
});

test.each([
  ['missing header', 'eu-west', undefined, 'is missing'],
  ['other value', 'eu-west', 'us-east', 'does not match'],
  ['bad Base64', 'Hello', '=?base64?SGVsbG8?=', 'not canonical Base64'],
])('%s ⇒ 400 + −32020 naming Mcp-Param-Region', async (_case, region, header, message) => {
  const res = await call(region, header);
  expect(res.statusCode).toBe(400);
  const error = rpcError(res);
  expect(error.code).toBe(-32020);
  expect(error.message).toContain('Mcp-Param-Region');
  expect(error.message).toContain(message);
  expect(json(res).id).toBe(1);
});

test('legacy requests carry no Mcp-Param headers and are served', async () => {
  const res = await gw.inject({
    method: 'POST',
    url: '/t/conf/mcp',
    headers: { ...POST_HEADERS, 'mcp-protocol-version': LEGACY },
    payload: JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'test_header_params', arguments: { region: 'eu' } },
    }),
  });
  expect(JSON.stringify(rpcResult(res))).toContain('region=eu');
});
