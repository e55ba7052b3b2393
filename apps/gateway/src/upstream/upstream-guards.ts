import {
  BrokenCircuitError,
  BulkheadRejectedError,
  CircuitState,
  ConsecutiveBreaker,
  bulkhead,
  circuitBreaker,
  handleWhen,
  type BulkheadPolicy,
  type CircuitBreakerPolicy,
} from 'cockatiel';
import type { CircuitListener } from './upstream-types';

export interface BreakerSettings {
  /** Consecutive counted failures that open the circuit. */
  failureThreshold: number;
  /** How long an open circuit refuses calls before one trial call goes through, in ms. */
  openMs: number;
}

/** Why a guarded call did not run: the circuit is open, or no concurrency slot (queue full, or the wait ended). */
export type GuardRefusal =
  { kind: 'circuit-open'; retryInMs: number } | { kind: 'queue-full' } | { kind: 'slot-wait-ended'; reason: unknown };

/** Thrown by {@link UpstreamGuards.run} when the call did not run. */
export class GuardRefusedError extends Error {
  override readonly name = 'GuardRefusedError';
  constructor(readonly refusal: GuardRefusal) {
    super(refusal.kind);
  }
}

export interface GuardLimits {
  maxConcurrency: number;
  maxQueue: number;
}

/** A call run under a guard: its key's limits (used when the guard is created) and its signal (waiting for a slot ends with it). */
export interface GuardedCall extends GuardLimits {
  readonly signal: AbortSignal;
}

/** The upstream a guard protects, as the circuit listener names it. */
export interface GuardSubject {
  readonly tenantId: string;
  readonly serverId: string;
}

/** How a call ended, for the breaker: `failure` counts against the upstream, `success` resets it, `neutral` tells nothing. */
export type CallVerdict = 'success' | 'failure' | 'neutral';

interface Guard {
  breaker: CircuitBreakerPolicy;
  slots: BulkheadPolicy;
  openedAt: number;
  openMs: number;
}

/** Carries a failure through the breaker as a counted one (cockatiel counts only errors its policy handles). */
class Counted {
  constructor(readonly error: unknown) {}
}
/** Carries a failure through the breaker as a success (an upstream's error answer proves it alive). */
class Alive {
  constructor(readonly error: unknown) {}
}

/**
 * Per-upstream circuit breaker and concurrency cap with a bounded queue, on cockatiel
 * (`circuitBreaker` with a `ConsecutiveBreaker`, `bulkhead`): after `failureThreshold`
 * consecutive counted failures calls are refused at once for `openMs`, then one trial call
 * decides (callers arriving meanwhile wait for its verdict); past the queue a call is refused
 * at once, and a queued call whose signal aborts leaves at once.
 */
export class UpstreamGuards {
  private readonly guards = new Map<string, Guard>();

  constructor(
    private readonly breaker: BreakerSettings,
    /** Told of every circuit change of a guard created with a `subject` (the state gauge). */
    private readonly onCircuit?: CircuitListener,
  ) {}

  /**
   * Runs `fn` for `call` under the key's breaker and in one of its `maxConcurrency` slots; `verdict`
   * says what a failure of `fn` means for the breaker. Refusals throw {@link GuardRefusedError}.
   * `subject` names the upstream to the circuit listener when the key's guard is created.
   */
  async run<T>(
    key: string,
    call: GuardedCall,
    fn: () => Promise<T>,
    verdict: (err: unknown) => CallVerdict,
    subject?: GuardSubject,
  ): Promise<T> {
    const guard = this.guards.get(key) ?? this.create(key, call, subject);
    const inSlot = async (): Promise<T | Alive> => {
      try {
        return await withSlot(guard.slots, call.signal, fn);
      } catch (err) {
        if (err instanceof GuardRefusedError) throw err;
        const v = verdict(err);
        if (v === 'failure') throw new Counted(err);
        if (v === 'success') return new Alive(err);
        throw err;
      }
    };
    let out: T | Alive;
    try {
      out = await guard.breaker.execute(inSlot);
    } catch (err) {
      if (err instanceof Counted) throw err.error;
      if (err instanceof BrokenCircuitError)
        throw new GuardRefusedError({ kind: 'circuit-open', retryInMs: Math.max(0, guard.openMs - (Date.now() - guard.openedAt)) });
      throw err;
    }
    if (out instanceof Alive) throw out.error;
    return out;
  }

  /** The key's circuit (`closed` before its first call); an open circuit past `openMs` is `half-open` (the next call is its trial). */
  state(key: string): 'closed' | 'open' | 'half-open' {
    const guard = this.guards.get(key);
    if (!guard) return 'closed';
    switch (guard.breaker.state) {
      case CircuitState.Closed:
        return 'closed';
      case CircuitState.HalfOpen:
        return 'half-open';
      default:
        return Date.now() - guard.openedAt >= guard.openMs ? 'half-open' : 'open';
    }
  }

  private create(key: string, limits: GuardLimits, subject: GuardSubject | undefined): Guard {
    const { failureThreshold, openMs } = this.breaker;
    const breaker = circuitBreaker(
      handleWhen((e) => e instanceof Counted),
      { halfOpenAfter: openMs, breaker: new ConsecutiveBreaker(failureThreshold) },
    );
    const created: Guard = { breaker, slots: bulkhead(limits.maxConcurrency, limits.maxQueue), openedAt: 0, openMs };
    breaker.onBreak(() => (created.openedAt = Date.now()));
    const listener = this.onCircuit;
    if (listener && subject) {
      const { tenantId, serverId } = subject;
      listener(tenantId, serverId, 'closed');
      breaker.onStateChange((state) =>
        listener(tenantId, serverId, state === CircuitState.Closed ? 'closed' : state === CircuitState.HalfOpen ? 'half-open' : 'open'),
      );
    }
    this.guards.set(key, created);
    return created;
  }
}

/**
 * A slot of the bulkhead. cockatiel drops an aborted waiter only when a slot frees up, so a
 * queued call gives up here as soon as its signal aborts (its stale queue entry is skipped later).
 */
async function withSlot<T>(slots: BulkheadPolicy, signal: AbortSignal, fn: () => Promise<T>): Promise<T> {
  if (signal.aborted) throw new GuardRefusedError({ kind: 'slot-wait-ended', reason: signal.reason });
  if (slots.executionSlots > 0) return slots.execute(fn);
  if (slots.queueSlots <= 0) throw new GuardRefusedError({ kind: 'queue-full' });
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new GuardRefusedError({ kind: 'slot-wait-ended', reason: signal.reason }));
    signal.addEventListener('abort', onAbort, { once: true });
    slots
      .execute(fn, signal)
      .then(resolve, (err: unknown) => reject(err instanceof BulkheadRejectedError ? new GuardRefusedError({ kind: 'queue-full' }) : err))
      .finally(() => signal.removeEventListener('abort', onAbort));
  });
}
