import { GuardRefusedError, UpstreamGuards, type CallVerdict } from './upstream-guards';

const limits = { maxConcurrency: 8, maxQueue: 8 };
const never = new AbortController().signal;
const verdictOf = (err: unknown): CallVerdict => (err as { verdict?: CallVerdict }).verdict ?? 'failure';
const failing = (verdict: CallVerdict) => () => Promise.reject(Object.assign(new Error(verdict), { verdict }));

/** Runs one call under the guards and says how it ended. */
async function outcome(guards: UpstreamGuards, fn: () => Promise<unknown>, key = 'k', signal = never): Promise<string> {
  try {
    await guards.run(key, { ...limits, signal }, fn, verdictOf);
    return 'ok';
  } catch (err) {
    return err instanceof GuardRefusedError ? err.refusal.kind : 'failed';
  }
}

describe('UpstreamGuards: the breaker', () => {
  let now = 1_000_000;
  beforeEach(() => {
    now = 1_000_000;
    jest.spyOn(Date, 'now').mockImplementation(() => now);
  });
  afterEach(() => jest.restoreAllMocks());

  it('opens when 8 concurrent calls fail, refuses while open, then one trial decides', async () => {
    const guards = new UpstreamGuards({ failureThreshold: 5, openMs: 1000 });
    let fail!: () => void;
    const gate = new Promise<void>((resolve) => (fail = resolve));
    const calls = Array.from({ length: 8 }, () => outcome(guards, () => gate.then(() => Promise.reject(new Error('reset')))));
    fail();
    expect(await Promise.all(calls)).toEqual(Array(8).fill('failed'));
    expect(guards.state('k')).toBe('open');
    expect(await outcome(guards, async () => undefined)).toBe('circuit-open');

    now += 1000;
    expect(guards.state('k')).toBe('half-open');
    // Of 8 concurrent callers one is the trial; the others wait for its verdict, then run on a closed circuit.
    let release!: () => void;
    const trialGate = new Promise<void>((resolve) => (release = resolve));
    let ran = 0;
    const half = Array.from({ length: 8 }, () => outcome(guards, () => trialGate.then(() => void ran++)));
    await Promise.resolve();
    expect(ran).toBe(0);
    release();
    expect(await Promise.all(half)).toEqual(Array(8).fill('ok'));
    expect(guards.state('k')).toBe('closed');
  });

  it('tells the circuit listener of each change, starting closed, without being asked per call', async () => {
    const seen: string[] = [];
    const guards = new UpstreamGuards({ failureThreshold: 1, openMs: 1000 }, (tenantId, serverId, state) =>
      seen.push(`${tenantId}/${serverId} ${state}`),
    );
    const subject = { tenantId: 't', serverId: 's' };
    await guards.run('k', { ...limits, signal: never }, async () => undefined, verdictOf, subject);
    await guards.run('k', { ...limits, signal: never }, async () => undefined, verdictOf, subject);
    expect(seen).toEqual(['t/s closed']);
    await guards.run('k', { ...limits, signal: never }, failing('failure'), verdictOf, subject).catch(() => undefined);
    now += 1000;
    await guards.run('k', { ...limits, signal: never }, async () => undefined, verdictOf, subject);
    expect(seen).toEqual(['t/s closed', 't/s open', 't/s half-open', 't/s closed']);
  });

  it('a failed trial opens the circuit again for openMs', async () => {
    const guards = new UpstreamGuards({ failureThreshold: 1, openMs: 1000 });
    expect(await outcome(guards, failing('failure'))).toBe('failed');
    now += 1000;
    expect(await outcome(guards, failing('failure'))).toBe('failed');
    expect(guards.state('k')).toBe('open');
    now += 999;
    expect(await outcome(guards, async () => undefined)).toBe('circuit-open');
  });

  it("counts only the upstream's failures: the gateway's own or the client's are neutral, an error answer resets the count", async () => {
    const guards = new UpstreamGuards({ failureThreshold: 3, openMs: 1000 });
    for (let i = 0; i < 10; i++) await outcome(guards, failing('neutral'));
    expect(guards.state('k')).toBe('closed');
    await outcome(guards, failing('failure'));
    await outcome(guards, failing('failure'));
    await outcome(guards, failing('success'));
    await outcome(guards, failing('failure'));
    await outcome(guards, failing('failure'));
    expect(guards.state('k')).toBe('closed');
    await outcome(guards, failing('failure'));
    expect(guards.state('k')).toBe('open');
    // Per key: another upstream is untouched.
    expect(guards.state('other')).toBe('closed');
    expect(await outcome(guards, async () => undefined, 'other')).toBe('ok');
  });

  it('rethrows the call error itself, whatever its verdict', async () => {
    const guards = new UpstreamGuards({ failureThreshold: 3, openMs: 1000 });
    const err = Object.assign(new Error('answer'), { verdict: 'success' as const });
    await expect(guards.run('k', { ...limits, signal: never }, () => Promise.reject(err), verdictOf)).rejects.toBe(err);
  });
});

describe('UpstreamGuards: the concurrency cap', () => {
  const small = { maxConcurrency: 1, maxQueue: 1 };

  it('queues up to maxQueue calls and refuses the next at once; a freed slot runs the next waiter', async () => {
    const guards = new UpstreamGuards({ failureThreshold: 5, openMs: 1000 });
    let release!: () => void;
    const busy = guards.run(
      'k',
      { ...small, signal: never },
      () => new Promise<string>((resolve) => (release = () => resolve('first'))),
      verdictOf,
    );
    const queued = guards.run('k', { ...small, signal: never }, async () => 'second', verdictOf);
    await expect(guards.run('k', { ...small, signal: never }, async () => 'third', verdictOf)).rejects.toMatchObject({
      refusal: { kind: 'queue-full' },
    });
    release();
    expect(await busy).toBe('first');
    expect(await queued).toBe('second');
  });

  it('a waiter whose signal aborts leaves the queue at once (not when a slot frees)', async () => {
    const guards = new UpstreamGuards({ failureThreshold: 5, openMs: 1000 });
    let release!: () => void;
    const busy = guards.run('k', { ...small, signal: never }, () => new Promise<void>((resolve) => (release = resolve)), verdictOf);
    const abort = new AbortController();
    let ran = false;
    const waiting = guards.run('k', { ...small, signal: abort.signal }, async () => void (ran = true), verdictOf);
    abort.abort(new Error('timed out'));
    await expect(waiting).rejects.toMatchObject({ refusal: { kind: 'slot-wait-ended' } });
    release();
    await busy;
    expect(await outcome(guards, async () => undefined)).toBe('ok');
    expect(ran).toBe(false);
  });
});
