import { PassThrough } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import { readRequestBody, type RouteFailure } from './request-body';

function request(headers: Record<string, string> = {}): IncomingMessage & PassThrough {
  return Object.assign(new PassThrough(), { headers }) as unknown as IncomingMessage & PassThrough;
}

function read(raw: IncomingMessage, limit: number): Promise<{ failure: RouteFailure | undefined; body: string; owner: string }> {
  return new Promise((resolve) =>
    readRequestBody(raw, limit, 'owner', (owner, failure, body) => resolve({ owner, failure, body: body.toString() })),
  );
}

describe('readRequestBody', () => {
  it('hands one chunk over as is, and joins several', async () => {
    const one = request();
    const single = read(one, 100);
    one.end('{"a":1}');
    expect(await single).toEqual({ owner: 'owner', failure: undefined, body: '{"a":1}' });
    const many = request();
    const joined = read(many, 100);
    many.write('ab');
    many.write('cd');
    many.end('ef');
    expect((await joined).body).toBe('abcdef');
  });

  it('refuses at once a Content-Length over the limit, before reading', async () => {
    const raw = request({ 'content-length': '101' });
    const outcome = await read(raw, 100);
    expect(outcome.failure).toEqual({ statusCode: 413, message: 'Request body is too large' });
    expect(raw.listenerCount('data')).toBe(0);
  });

  it('stops reading as soon as the bytes passed the limit', async () => {
    const raw = request();
    const outcome = read(raw, 4);
    raw.write('abc');
    raw.write('de');
    expect((await outcome).failure?.statusCode).toBe(413);
    expect(raw.listenerCount('data')).toBe(0);
  });

  it('answers nothing when the upload fails, and closes the request', async () => {
    const raw = request();
    let called = false;
    readRequestBody(raw, 100, undefined, () => (called = true));
    raw.destroy(new Error('reset'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(called).toBe(false);
    expect(raw.destroyed).toBe(true);
  });
});
