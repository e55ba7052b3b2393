import { createCipheriv, randomBytes } from 'node:crypto';
import { keyId } from './key-id';
import { isSecretsKeys, parseSecretsKeys } from './parse-secrets-keys';
import { SecretBox } from './secret-box';

/** A blob in the format before key ids (`v1.<iv|tag|ct>`), as sealed by the previous SecretBox. */
function legacySeal(key: Buffer, plaintext: string, aad: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return `v1.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
}

describe('SecretBox key ids and rotation', () => {
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);

  it('names the sealing key in the blob; the id is stable and reveals nothing of the key', () => {
    const box = new SecretBox(oldKey);
    expect(box.primaryKeyId).toBe(keyId(oldKey));
    expect(keyId(oldKey)).toMatch(/^[A-Za-z0-9_-]{8}$/);
    expect(keyId(oldKey)).not.toBe(keyId(newKey));
    expect(box.seal('s', 'a').split('.')[1]).toBe(keyId(oldKey));
  });

  it('seals with the first of several keys and opens what any of them sealed', () => {
    const sealedOld = new SecretBox(oldKey).seal('old secret', 'row:1');
    const ring = new SecretBox([newKey, oldKey]);
    expect(ring.open(sealedOld, 'row:1')).toBe('old secret');
    expect(ring.seal('new', 'row:2').split('.')[1]).toBe(keyId(newKey));
  });

  it('says which key a blob needs when that key is not configured', () => {
    const sealed = new SecretBox(oldKey).seal('x', 'a');
    expect(() => new SecretBox(newKey).open(sealed, 'a')).toThrow(`sealed with key ${keyId(oldKey)}, which is not configured`);
  });

  it('opens blobs from before key ids with whichever configured key sealed them (migration path)', () => {
    const legacy = legacySeal(oldKey, 'from v1', 'server-secret:acme:crm');
    expect(new SecretBox([newKey, oldKey]).open(legacy, 'server-secret:acme:crm')).toBe('from v1');
    expect(() => new SecretBox(newKey).open(legacy, 'server-secret:acme:crm')).toThrow();
  });

  it('re-seals legacy and older-key blobs under the newest key, and leaves current ones alone', () => {
    const ring = new SecretBox([newKey, oldKey]);
    const legacy = legacySeal(oldKey, 'v1 value', 'a');
    const older = new SecretBox(oldKey).seal('older value', 'b');
    const current = ring.seal('current', 'c');
    expect([ring.needsReseal(legacy), ring.needsReseal(older), ring.needsReseal(current)]).toEqual([true, true, false]);
    const resealed = ring.reseal(older, 'b');
    expect(ring.needsReseal(resealed)).toBe(false);
    // After the old key is dropped, the re-sealed blob still opens.
    expect(new SecretBox(newKey).open(resealed, 'b')).toBe('older value');
    expect(new SecretBox(newKey).open(ring.reseal(legacy, 'a'), 'a')).toBe('v1 value');
  });

  it('parses SECRETS_KEY lists (base64 or hex, newest first) and names the bad entry', () => {
    const list = parseSecretsKeys(`${newKey.toString('base64')}, ${oldKey.toString('hex')}`);
    expect(list.map((k) => k.toString('hex'))).toEqual([newKey.toString('hex'), oldKey.toString('hex')]);
    expect(() => parseSecretsKeys(`${newKey.toString('base64')},c2hvcnQ=`)).toThrow('key 2 of 2 must be 32 bytes');
    expect(() => parseSecretsKeys(' , ')).toThrow('at least one key');
    expect([isSecretsKeys(newKey.toString('hex')), isSecretsKeys(`${newKey.toString('base64')},c2hvcnQ=`), isSecretsKeys('')]).toEqual([
      true,
      false,
      false,
    ]);
  });
});
