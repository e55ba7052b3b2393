import { createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { DEFAULT_SEAL_TTL_S, StateSealer } from './state-sealer';

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

  it('puts exp on every sealed value and refuses it past exp, saying so; a value without exp counts as expired', () => {
    const sealer = new StateSealer([key]);
    const token = sealer.seal('stream-event', { s: 'x' }, 60);
    const exp = (JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString('utf8')) as { exp: number }).exp;
    expect(exp).toBeGreaterThan(Date.now() / 1000 + 50);
    expect(exp).toBeLessThanOrEqual(Date.now() / 1000 + 60);
    expect(sealer.check('stream-event', token)).toEqual({ ok: true, data: { s: 'x' } });
    const expired = sealer.seal('stream-event', { s: 'x' }, -1);
    expect(sealer.check('stream-event', expired)).toEqual({ ok: false, reason: 'expired' });
    expect(sealer.open('stream-event', expired)).toBeUndefined();
    expect(sealer.check('stream-event', 'made.up')).toEqual({ ok: false, reason: 'invalid' });
    // Sealed the way values were before they carried exp.
    const body = Buffer.from(JSON.stringify({ s: 'x' })).toString('base64url');
    const hkdf = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'switchboard/stream-event', 32));
    const legacy = `${body}.${createHmac('sha256', hkdf).update(body).digest('base64url')}`;
    expect(sealer.check('stream-event', legacy)).toEqual({ ok: false, reason: 'expired' });
  });

  it('gives every purpose a default lifetime', () => {
    const sealer = new StateSealer([key]);
    for (const purpose of ['session', 'client-request', 'request-state', 'stream-event'] as const) {
      const before = Math.floor(Date.now() / 1000);
      const body = JSON.parse(Buffer.from(sealer.seal(purpose, {}).split('.')[0]!, 'base64url').toString('utf8')) as { exp: number };
      expect(body.exp - DEFAULT_SEAL_TTL_S[purpose]).toBeGreaterThanOrEqual(before);
      expect(body.exp - DEFAULT_SEAL_TTL_S[purpose]).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    }
  });

  it('refuses short keys and an empty key list', () => {
    expect(() => new StateSealer([])).toThrow(/at least one key/);
    expect(() => new StateSealer([randomBytes(16)])).toThrow(/32 bytes/);
  });
});

describe('StateSealer secret seals', () => {
  const key = randomBytes(32);

  it('opens on another instance with the same key, and the value is not readable in the token', () => {
    const token = new StateSealer([key]).sealSecret('upstream-task', { s: 'upstream-session-42', id: 'task-7' });
    expect(new StateSealer([key]).checkSecret('upstream-task', token)).toEqual({
      ok: true,
      data: { s: 'upstream-session-42', id: 'task-7' },
    });
    expect(Buffer.from(token, 'base64url').toString('latin1')).not.toContain('upstream-session-42');
    expect(token).not.toContain('.');
  });

  it('refuses an altered token, another purpose, another key, junk; and a past exp as expired', () => {
    const sealer = new StateSealer([key]);
    const token = sealer.sealSecret('upstream-task', { id: 'a' });
    const raw = Buffer.from(token, 'base64url');
    raw[raw.length - 1] ^= 1;
    expect(sealer.checkSecret('upstream-task', raw.toString('base64url'))).toEqual({ ok: false, reason: 'invalid' });
    expect(sealer.checkSecret('request-state', token)).toEqual({ ok: false, reason: 'invalid' });
    expect(new StateSealer([randomBytes(32)]).checkSecret('upstream-task', token)).toEqual({ ok: false, reason: 'invalid' });
    for (const junk of ['', 'a.b', 'abc', 'x'.repeat(10_000)]) expect(sealer.checkSecret('upstream-task', junk).ok).toBe(false);
    expect(sealer.checkSecret('upstream-task', sealer.sealSecret('upstream-task', { id: 'a' }, 0))).toEqual({
      ok: false,
      reason: 'expired',
    });
  });

  it('rotates: the old key still opens', () => {
    const old = new StateSealer([key]).sealSecret('upstream-task', { id: 'a' });
    expect(new StateSealer([randomBytes(32), key]).checkSecret('upstream-task', old).ok).toBe(true);
  });
});
