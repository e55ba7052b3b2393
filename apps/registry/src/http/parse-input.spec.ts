import { z } from 'zod';
import { ApiError } from './api-error';
import { parseInput } from './parse-input';
import { createServerBody } from './schemas';

function refusal(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('parseInput', () => {
  const schema = z
    .object({ name: z.string(), tags: z.array(z.string()).optional(), meta: z.record(z.string(), z.string()).optional() })
    .strict();

  it('returns the parsed input', () => {
    expect(parseInput(schema, { name: 'a' }, 'body')).toEqual({ name: 'a' });
  });

  it('names the first invalid field and lists every issue', () => {
    const err = refusal(() => parseInput(schema, { name: 1, tags: [2] }, 'body'));
    expect(err).toMatchObject({ status: 400, code: 'VALIDATION', field: 'body.name' });
    expect((err.details?.issues as unknown[]).length).toBe(2);
  });

  it.each([
    [{ name: 'a\u0000b' }, 'body.name'],
    [{ name: 'ok', tags: ['x', '\u0000'] }, 'body.tags.1'],
    [{ name: 'ok', meta: { 'k\u0000': 'v' } }, 'body.meta.k\\u0000'],
  ])('refuses NUL characters (Postgres text/jsonb and HTTP headers cannot hold them) in %j as a 400 naming %s', (input, field) => {
    const err = refusal(() => parseInput(schema, input, 'body'));
    expect(err).toMatchObject({ status: 400, code: 'VALIDATION', field });
    expect(err.message).toBe(`${field}: must not contain NUL (\\u0000) characters`);
    expect(err.details).toEqual({ issues: [{ field, message: 'must not contain NUL (\\u0000) characters' }] });
  });

  it.each([
    ['bearer', { mode: 'bearer', token: 'line\nbreak' }, 'body.auth.token'],
    ['bearer', { mode: 'bearer', token: 'ключ' }, 'body.auth.token'],
    ['header', { mode: 'header', header: 'X-Key', value: 'a\r\nX-Injected: 1' }, 'body.auth.value'],
  ])('refuses a %s secret that cannot be sent as an HTTP header value', (_mode, auth, field) => {
    const err = refusal(() => parseInput(createServerBody, { id: 'crm', name: 'CRM', url: 'https://mcp.example.com/mcp', auth }, 'body'));
    expect(err).toMatchObject({ status: 400, field });
    expect(err.message).toMatch(/printable ASCII/);
  });

  it('accepts a printable ASCII secret', () => {
    expect(
      parseInput(
        createServerBody,
        { id: 'crm', name: 'CRM', url: 'https://mcp.example.com/mcp', auth: { mode: 'bearer', token: 'sk_live_AZaz09-._~+/=' } },
        'body',
      ).auth,
    ).toEqual({
      mode: 'bearer',
      token: 'sk_live_AZaz09-._~+/=',
    });
  });
});
