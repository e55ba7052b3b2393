import { checkUrl } from './check-url';
import { NetGuardError } from './net-guard-error';

const policy = { allowHosts: ['localhost'] };

async function refusal(url: string): Promise<NetGuardError> {
  const err = await checkUrl(url, policy).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof NetGuardError)) throw new Error(`expected a NetGuardError for ${url}`);
  return err;
}

describe('checkUrl', () => {
  it.each([
    ['http://127.0.0.1:8080/mcp', 'NET_GUARD_SCHEME'],
    ['https://127.0.0.1/mcp', 'NET_GUARD_BLOCKED_ADDRESS'],
    ['https://169.254.169.254/latest/meta-data', 'NET_GUARD_BLOCKED_ADDRESS'],
    ['https://[::1]/mcp', 'NET_GUARD_BLOCKED_ADDRESS'],
    ['https://[::ffff:10.0.0.1]/mcp', 'NET_GUARD_BLOCKED_ADDRESS'],
    ['https://10.0.0.5/mcp', 'NET_GUARD_BLOCKED_ADDRESS'],
    ['ftp://example.com/', 'NET_GUARD_SCHEME'],
    ['https://user:pw@example.com/', 'NET_GUARD_BAD_URL'],
    ['not a url', 'NET_GUARD_BAD_URL'],
  ])('refuses %s with %s', async (url, code) => {
    expect((await refusal(url)).code).toBe(code);
  });

  it('refuses a host name that resolves to loopback (checked after DNS)', async () => {
    const err = await checkUrl('https://localhost/mcp', { allowHosts: [] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetGuardError);
    expect((err as NetGuardError).code).toBe('NET_GUARD_BLOCKED_ADDRESS');
    expect((err as NetGuardError).message).toMatch(/localhost \(resolves to .*\) is in a blocked address range: loopback/);
  });

  it('accepts an allow-listed host over http, and a public IP over https', async () => {
    await expect(checkUrl('http://localhost:3100/mcp', policy)).resolves.toBeInstanceOf(URL);
    await expect(checkUrl('https://8.8.8.8/mcp', policy)).resolves.toBeInstanceOf(URL);
  });
});
