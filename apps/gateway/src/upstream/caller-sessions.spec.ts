import { CallerSessions, callerScope } from './caller-sessions';
import { GatewayError } from './gateway-errors';

describe('CallerSessions', () => {
  it('scopes by subject and OAuth client, never in clear', () => {
    const base = {
      tenantId: 'acme',
      request: {} as never,
      signal: new AbortController().signal,
      progress: () => undefined,
      log: () => undefined,
    };
    const alice = callerScope({ ...base, auth: { ok: true, subject: 'alice', scopes: [] } });
    const bob = callerScope({ ...base, auth: { ok: true, subject: 'bob', scopes: [] } });
    const aliceOtherClient = callerScope({ ...base, auth: { ok: true, subject: 'alice', clientId: 'cli', scopes: [] } });
    expect(new Set([alice, bob, aliceOtherClient, callerScope(base)]).size).toBe(4);
    expect(alice).not.toContain('alice');
  });

  it('asks the latest call in flight of the caller, and nobody once its calls ended', () => {
    const sessions = new CallerSessions(() => undefined);
    const s = sessions.open('acme', 'k1', 'srv');
    const first = new AbortController();
    const second = new AbortController();
    const askFirst = jest.fn();
    const askSecond = jest.fn();
    sessions.begin('k1', s, first, askFirst);
    sessions.begin('k1', s, second, askSecond);
    expect(sessions.asker(s)).toBe(askSecond);
    sessions.end('k1', s, second, 1);
    expect(sessions.asker(s)).toBe(askFirst);
    sessions.end('k1', s, first, 0);
    expect(sessions.asker(s)).toBeUndefined();
    sessions.forget('k1', s);
  });

  it('holds a tenant to its cap: the least recently used idle one closes, and all busy is refused by name', () => {
    const closed: string[] = [];
    const sessions = new CallerSessions((key) => closed.push(key), 2, 60_000);
    const a = sessions.open('acme', 'a', 'srv');
    const b = sessions.open('acme', 'b', 'srv');
    const callA = new AbortController();
    const callB = new AbortController();
    sessions.begin('a', a, callA, undefined);
    sessions.begin('b', b, callB, undefined);
    // Another tenant has its own budget.
    expect(() => sessions.open('globex', 'g', 'srv')).not.toThrow();
    let refused: unknown;
    try {
      sessions.open('acme', 'c', 'srv');
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(GatewayError);
    expect((refused as GatewayError).code).toBe('GW_CALLER_SESSIONS_LIMIT');
    sessions.end('a', a, callA, 0);
    sessions.open('acme', 'c', 'srv');
    expect(closed).toEqual(['a']);
    sessions.forget('a', a);
    expect(sessions.count('acme')).toBe(2);
    for (const [key, s] of [
      ['b', b],
      ['c', undefined],
    ] as const)
      if (s) sessions.forget(key, s);
  });

  it('closes a connection left idle past its time', () => {
    jest.useFakeTimers();
    try {
      const closed: string[] = [];
      const sessions = new CallerSessions((key) => closed.push(key), 4, 1_000);
      const s = sessions.open('acme', 'k', 'srv');
      const call = new AbortController();
      sessions.begin('k', s, call, undefined);
      sessions.end('k', s, call, 0);
      jest.advanceTimersByTime(999);
      expect(closed).toEqual([]);
      // A call in between renews it.
      sessions.begin('k', s, call, undefined);
      jest.advanceTimersByTime(5_000);
      expect(closed).toEqual([]);
      sessions.end('k', s, call, 0);
      jest.advanceTimersByTime(1_000);
      expect(closed).toEqual(['k']);
    } finally {
      jest.useRealTimers();
    }
  });
});
