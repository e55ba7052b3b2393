import { parseCookies, serializeCookie } from './cookies';

describe('console cookies', () => {
  it('parses a Cookie header, skipping malformed pairs and keeping the first of a name', () => {
    const c = parseCookies('a=1; sb_console=v1.abc-_; junk; =x; a=2; q="quoted"');
    expect(c.get('a')).toBe('1');
    expect(c.get('sb_console')).toBe('v1.abc-_');
    expect(c.get('q')).toBe('quoted');
    expect(c.has('junk')).toBe(false);
    expect(parseCookies(undefined).size).toBe(0);
  });

  it('serialises HttpOnly cookies with path, max age, SameSite and Secure when asked', () => {
    expect(serializeCookie('sb_console', 'v1.x', { maxAgeSeconds: 28800, path: '/', sameSite: 'Strict', secure: true })).toBe(
      'sb_console=v1.x; Path=/; Max-Age=28800; HttpOnly; SameSite=Strict; Secure',
    );
    expect(serializeCookie('sb_console_login', '', { maxAgeSeconds: 0, path: '/console', sameSite: 'Lax', secure: false })).toBe(
      'sb_console_login=; Path=/console; Max-Age=0; HttpOnly; SameSite=Lax; Expires=Thu, 01 Jan 1970 00:00:00 GMT',
    );
  });

  it('refuses values that would need quoting (no header injection)', () => {
    expect(() => serializeCookie('a', 'x; Domain=evil', { maxAgeSeconds: 1, path: '/', sameSite: 'Lax', secure: false })).toThrow();
  });
});
