import { POST_HEADERS, edgeKit, rpc } from './testing/edge-kit';
import { guardRequest } from './edge-guard';
import { readBody } from './read-body';
import type { DecodedBody } from '@switchboard/protocol';

async function read(
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; error?: { code: number; message: string }; decoded?: DecodedBody }> {
  const kit = edgeKit();
  let decoded: DecodedBody | undefined;
  const res = await kit.step({ method: 'POST', url: '/t/acme/mcp', headers }, (call) => {
    guardRequest(call);
    call.body = Buffer.from(body);
    decoded = readBody(call);
  });
  return { status: res.statusCode, ...(decoded ? { decoded } : { error: res.json().error }) };
}

describe('readBody', () => {
  it('decodes one JSON-RPC request, and a batch', async () => {
    const one = await read(POST_HEADERS, rpc('tools/list'));
    expect(one.decoded).toMatchObject({ kind: 'single', message: { type: 'request', message: { method: 'tools/list' } } });
    const batch = await read(POST_HEADERS, `[${rpc('ping', {}, 1)},${rpc('ping', {}, 2)}]`);
    expect(batch.decoded).toMatchObject({ kind: 'batch' });
  });

  it('refuses another media type with 415', async () => {
    expect(await read({ ...POST_HEADERS, 'content-type': 'text/plain' }, rpc('ping'))).toMatchObject({
      status: 415,
      error: { message: 'Content-Type must be application/json' },
    });
  });

  it('refuses an Accept without both JSON and event streams with 406', async () => {
    const r = await read({ ...POST_HEADERS, accept: 'application/json' }, rpc('ping'));
    expect(r).toMatchObject({ status: 406, error: { message: 'Accept must list both application/json and text/event-stream' } });
    expect((await read({ ...POST_HEADERS, accept: '*/*' }, rpc('ping'))).decoded).toBeDefined();
  });

  it('answers an empty body and malformed JSON with a parse error (-32700, 400)', async () => {
    expect(await read(POST_HEADERS, '')).toMatchObject({ status: 400, error: { code: -32700, message: 'Parse error: empty body' } });
    expect(await read(POST_HEADERS, '{"jsonrpc":')).toMatchObject({ status: 400, error: { code: -32700 } });
  });
});
