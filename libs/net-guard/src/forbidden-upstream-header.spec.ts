import { forbiddenUpstreamHeader } from './forbidden-upstream-header';
import { stripForbiddenHeaders } from './strip-forbidden-headers';

describe('forbiddenUpstreamHeader', () => {
  it.each([
    'host',
    'Content-Length',
    'transfer-encoding',
    'connection',
    'te',
    'upgrade',
    'keep-alive',
    'trailer',
    'expect',
    'proxy-authorization',
    'Proxy-Connection',
    'mcp-session-id',
    'Mcp-Protocol-Version',
    'content-type',
    'accept',
    'traceparent',
    'sec-fetch-site',
  ])('refuses %s', (name) => {
    expect(forbiddenUpstreamHeader(name)).toEqual(
      expect.stringContaining(name.toLowerCase().startsWith('proxy-') ? 'proxy-' : name.toLowerCase().slice(0, 4)),
    );
  });

  it.each(['authorization', 'x-api-key', 'cookie', 'x-tenant', 'api-key'])('accepts %s', (name) => {
    expect(forbiddenUpstreamHeader(name)).toBeUndefined();
  });

  it('strips the forbidden ones and keeps the rest', () => {
    expect(stripForbiddenHeaders({ authorization: 'Bearer a', host: 'x', 'Transfer-Encoding': 'chunked', 'x-api-key': 'k' })).toEqual({
      authorization: 'Bearer a',
      'x-api-key': 'k',
    });
  });
});
