import { NetGuardError } from '@switchboard/net-guard';
import { upstreamFailure } from './upstream-failure';

describe('upstreamFailure', () => {
  const wrap = (cause: unknown, message = 'SDK error') => Object.assign(new Error(message), { cause });

  it('finds an SSRF refusal anywhere in the cause chain, before anything else', () => {
    const guard = Object.create(NetGuardError.prototype) as NetGuardError;
    Object.assign(guard, { message: 'url: resolves to a private address' });
    expect(upstreamFailure(wrap(wrap(guard), 'HTTP 401'))).toEqual({ kind: 'refused', error: guard });
  });

  it('tells a rejected credential, silence and a network failure apart', () => {
    expect(upstreamFailure(Object.assign(new Error('Streamable HTTP error'), { code: 401 }))).toEqual({ kind: 'auth' });
    expect(upstreamFailure(new Error('Error POSTing to endpoint (HTTP 403): Forbidden'))).toEqual({ kind: 'auth' });
    expect(upstreamFailure(Object.assign(new Error('Request timed out'), { code: 'REQUEST_TIMEOUT' }))).toEqual({ kind: 'timeout' });
    expect(upstreamFailure(wrap(Object.assign(new Error('The operation was aborted'), { name: 'AbortError' })))).toEqual({ kind: 'timeout' });
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
    expect(upstreamFailure(wrap(wrap(refused, 'fetch failed')))).toEqual({ kind: 'network', error: refused });
  });

  it('calls anything else an answer of the wrong protocol', () => {
    expect(upstreamFailure(new Error('Method not found: server/discover'))).toEqual({ kind: 'other' });
    expect(upstreamFailure(Object.assign(new Error('HTTP 405'), { code: 405 }))).toEqual({ kind: 'other' });
  });
});
