import { hashPassword, verifyAgainstDummy, verifyPassword } from './password-hash';

describe('password hashing (scrypt)', () => {
  it('stores the parameters and a random salt with the hash, and verifies only the right password', async () => {
    const a = await hashPassword('correct horse battery staple');
    const b = await hashPassword('correct horse battery staple');
    expect(a).toMatch(/^scrypt\$N=32768,r=8,p=1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword('correct horse battery staple', a)).toBe(true);
    expect(await verifyPassword('correct horse battery stapl', a)).toBe(false);
    expect(await verifyPassword('', a)).toBe(false);
  });

  it('verifies hashes made with other (stored) parameters', async () => {
    const { scryptSync, randomBytes } = await import('node:crypto');
    const salt = randomBytes(16);
    const key = scryptSync('an older password', salt, 32, { N: 1024, r: 8, p: 1 });
    const stored = `scrypt$N=1024,r=8,p=1$${salt.toString('base64url')}$${key.toString('base64url')}`;
    expect(await verifyPassword('an older password', stored)).toBe(true);
    expect(await verifyPassword('another password', stored)).toBe(false);
  });

  it('normalises Unicode so the same password typed on another keyboard matches', async () => {
    const stored = await hashPassword('caf\u00e9-password-1');
    expect(await verifyPassword('cafe\u0301-password-1', stored)).toBe(true);
  });

  it.each([
    ['garbage', 'not a hash'],
    ['another algorithm', '$2b$10$abcdefghijklmnopqrstuuabcdefghijklmnopqrstuvwxyz01234'],
    ['N not a power of two', 'scrypt$N=1000,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
    ['a cost that would exhaust memory', 'scrypt$N=67108864,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
  ])('never matches a malformed stored value (%s)', async (_what, stored) => {
    expect(await verifyPassword('whatever-password', stored)).toBe(false);
  });

  it('the dummy verification for unknown users always fails', async () => {
    expect(await verifyAgainstDummy('correct horse battery staple')).toBe(false);
  });
});
