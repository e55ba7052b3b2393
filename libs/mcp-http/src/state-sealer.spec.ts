import { randomBytes } from 'node:crypto';
import { StateSealer } from './state-sealer';

describe('StateSealer', () => {
  const key = randomBytes(32);

  it('opens what it sealed, on another instance with the same key (another replica)', () => {
    const token = new StateSealer([key]).seal('session', { t: 'acme', n: 1 });
    expect(new StateSealer([key]).open('session', token)).toEqual({ t: 'acme', n: 1 });
  });

  it('refuses an altered body or tag, another purpose, another key and junk', () => {
    const sealer = new StateSealer([key]);
    const token = sealer.seal('request-state', { tool: 'x' });
    const [body, tag] = token.split('.') as [string, string];
    const forged = Buffer.from(JSON.stringify({ tool: 'y' })).toString('base64url');
    expect(sealer.open('request-state', `${forged}.${tag}`)).toBeUndefined();
    expect(sealer.open('request-state', `${body}.${tag.slice(1)}x`)).toBeUndefined();
    expect(sealer.open('session', token)).toBeUndefined();
    expect(new StateSealer([randomBytes(32)]).open('request-state', token)).toBeUndefined();
    for (const junk of ['', '.', 'abc', 'a.b.c', 'x'.repeat(10_000)]) expect(sealer.open('request-state', junk)).toBeUndefined();
  });

  it('rotates: a new first key signs, the old one still verifies', () => {
    const old = new StateSealer([key]).seal('client-request', { r: 'a' });
    const rotated = new StateSealer([randomBytes(32), key]);
    expect(rotated.open('client-request', old)).toEqual({ r: 'a' });
    expect(new StateSealer([key]).open('client-request', rotated.seal('client-request', { r: 'b' }))).toBeUndefined();
  });

  it('refuses short keys and an empty key list', () => {
    expect(() => new StateSealer([])).toThrow(/at least one key/);
    expect(() => new StateSealer([randomBytes(16)])).toThrow(/32 bytes/);
  });
});
