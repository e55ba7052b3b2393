import { hostAllowed, hostnameOf, originAllowed } from './origin-policy';

describe('originAllowed', () => {
  const allowed = ['https://claude.ai', 'http://localhost:*'];

  it('accepts an exact origin', () => {
    expect(originAllowed('https://claude.ai', allowed)).toBe(true);
  });

  it('accepts any port under a port wildcard, and the bare origin', () => {
    expect(originAllowed('http://localhost:6274', allowed)).toBe(true);
    expect(originAllowed('http://localhost', allowed)).toBe(true);
  });

  it('refuses look-alike origins', () => {
    expect(originAllowed('https://claude.ai.evil.example', allowed)).toBe(false);
    expect(originAllowed('http://localhost.evil.example:80', allowed)).toBe(false);
    expect(originAllowed('http://localhost:80abc', allowed)).toBe(false);
    expect(originAllowed('http://evil.example.com', allowed)).toBe(false);
  });
});

describe('hostAllowed', () => {
  it('compares hostnames without their port', () => {
    expect(hostAllowed('127.0.0.1:3000', ['127.0.0.1'])).toBe(true);
    expect(hostAllowed('[::1]:3000', ['[::1]'])).toBe(true);
    expect(hostAllowed('LOCALHOST', ['localhost'])).toBe(true);
  });

  it('refuses other hosts and a missing Host when a list is set', () => {
    expect(hostAllowed('evil.example.com', ['127.0.0.1'])).toBe(false);
    expect(hostAllowed(undefined, ['127.0.0.1'])).toBe(false);
  });

  it('accepts any host when the list is empty', () => {
    expect(hostAllowed('anything.example', [])).toBe(true);
  });

  it('extracts hostnames', () => {
    expect(hostnameOf('a.example:8443')).toBe('a.example');
    expect(hostnameOf('[::1]')).toBe('[::1]');
  });
});
