import { randomBytes } from 'node:crypto';
import { SecretBox } from '@switchboard/secret-box';
import { tamper } from '@switchboard/testing';
import { ConsoleSessions, SESSION_SECONDS } from './console-session';

describe('ConsoleSessions', () => {
  let now = 1_800_000_000;
  const box = new SecretBox(randomBytes(32));
  const sessions = new ConsoleSessions(box, () => now);

  it('round-trips a session until it expires (8 h)', () => {
    const { value, session } = sessions.sealSession({ tid: 'acme', username: 'ada', name: 'Ada' });
    expect(session.exp).toBe(now + SESSION_SECONDS);
    expect(value).toMatch(/^v2\.[A-Za-z0-9_-]{8}\.[A-Za-z0-9_-]+$/);
    expect(value).not.toContain('ada');
    expect(sessions.openSession(value)).toEqual({
      sid: session.sid,
      tid: 'acme',
      username: 'ada',
      name: 'Ada',
      exp: now + SESSION_SECONDS,
    });
    expect(session.sid).toMatch(/^[A-Za-z0-9_-]{43}$/);
    now += SESSION_SECONDS;
    expect(sessions.openSession(value)).toBeUndefined();
  });

  it('never opens a login cookie as a session (or the reverse), a tampered blob, or one sealed under another key', () => {
    const login = sessions.sealLogin({ state: 's', verifier: 'v', returnTo: '#/tools' });
    expect(sessions.openSession(login)).toBeUndefined();
    expect(sessions.openLogin(login)).toMatchObject({ state: 's', verifier: 'v', returnTo: '#/tools' });
    const { value } = sessions.sealSession({ tid: 'acme', username: 'ada', name: null });
    expect(sessions.openLogin(value)).toBeUndefined();
    // A byte inside the sealed blob (its last character may carry only padding bits).
    expect(sessions.openSession(tamper(value, -8))).toBeUndefined();
    const other = new ConsoleSessions(new SecretBox(randomBytes(32)), () => now);
    expect(other.openSession(value)).toBeUndefined();
    expect(sessions.openSession(undefined)).toBeUndefined();
    expect(sessions.openSession('garbage')).toBeUndefined();
  });
});
