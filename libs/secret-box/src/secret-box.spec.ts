import { randomBytes } from 'node:crypto';
import { hashId } from './hash-id';
import { SecretBox } from './secret-box';

describe('SecretBox', () => {
  const box = new SecretBox(randomBytes(32));

  it('opens what it sealed for the same owner', () => {
    const sealed = box.seal('{"headers":{"authorization":"Bearer s3cret"}}', 'gateway-credential:acme:crm');
    expect(sealed).toMatch(new RegExp(`^v2\\.${box.primaryKeyId}\\.[A-Za-z0-9_-]+$`));
    expect(sealed).not.toContain('s3cret');
    expect(box.open(sealed, 'gateway-credential:acme:crm')).toBe('{"headers":{"authorization":"Bearer s3cret"}}');
  });

  it('seals the same plaintext differently each time', () => {
    expect(box.seal('x', 'a')).not.toBe(box.seal('x', 'a'));
  });

  it('refuses a blob bound to another owner, under another key, or tampered with', () => {
    const sealed = box.seal('secret', 'server-secret:acme:crm');
    expect(() => box.open(sealed, 'server-secret:other:crm')).toThrow();
    expect(() => new SecretBox(randomBytes(32)).open(sealed, 'server-secret:acme:crm')).toThrow();
    const prefix = `v2.${box.primaryKeyId}.`;
    const raw = Buffer.from(sealed.slice(prefix.length), 'base64url');
    raw[raw.length - 1] ^= 1;
    expect(() => box.open(`${prefix}${raw.toString('base64url')}`, 'server-secret:acme:crm')).toThrow();
  });

  it('refuses unknown formats and short blobs with a clear error', () => {
    expect(() => box.open('v3.abc', 'a')).toThrow('unknown sealed-secret format');
    expect(() => box.open('v1.abc', 'a')).toThrow('sealed secret too short');
    expect(() => box.open(`v2.${box.primaryKeyId}.abc`, 'a')).toThrow('sealed secret too short');
  });

  it('needs a 32-byte key', () => {
    expect(() => new SecretBox(randomBytes(16))).toThrow('32-byte key');
  });

  it('derives distinct purpose-bound keys and MACs', () => {
    expect(box.derive('cookies').equals(box.derive('csrf'))).toBe(false);
    expect(box.mac('csrf', 'v')).toBe(box.mac('csrf', 'v'));
    expect(box.mac('csrf', 'v')).not.toBe(box.mac('link', 'v'));
  });
});

describe('hashId', () => {
  it('is the hex sha-256 of the value', () => {
    expect(hashId('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
