import { createHash, randomBytes } from 'node:crypto';
import type { StateSealer } from './state-sealer';

/** A client's answer to a server→client request (the `result` or `error` member of its JSON-RPC response). */
export interface ClientAnswer {
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

/** One server→client request waiting for the client's answer. */
export interface PendingClientRequest {
  /** The JSON-RPC id to send: sealed, bound to the replica that waits and to the caller's scope. */
  readonly id: string;
  readonly answer: Promise<ClientAnswer>;
  /** Stops waiting (timeout, cancellation, the call ended); a late answer is then refused as unknown. */
  cancel(): void;
}

/** Carries an answer to the replica that waits for it (the gateway uses Redis pub/sub). */
export interface ClientAnswerRelay {
  /** Resolves true when some replica took the answer. */
  forward(replicaId: string, id: string, answer: ClientAnswer): Promise<boolean>;
}

/** What {@link ClientRequestBroker.deliver} did with an answer. */
export type DeliveryOutcome = 'delivered' | 'unknown' | 'foreign' | 'expired';

/** Default cap on requests waiting in one process (each holds a promise and a timer at most). */
const DEFAULT_MAX_PENDING = 10_000;

/**
 * Routes clients' answers to server→client requests (elicitation, sampling, roots) back to
 * the call that asked, on a stateless edge: the request id is sealed (replica + random +
 * scope), so the answer POST may land on any replica. The replica that has the waiter
 * resolves it; another forwards through the relay. An id minted for another tenant or
 * subject is refused (`foreign`), one past its `exp` is `expired`, a stale or unknown one is `unknown`.
 */
export class ClientRequestBroker {
  readonly replicaId: string;
  private readonly pending = new Map<string, (answer: ClientAnswer) => void>();
  private readonly maxPending: number;

  constructor(
    private readonly sealer: StateSealer,
    options: { replicaId?: string; maxPending?: number; relay?: ClientAnswerRelay } = {},
  ) {
    this.replicaId = options.replicaId ?? randomBytes(8).toString('hex');
    this.maxPending = options.maxPending ?? DEFAULT_MAX_PENDING;
    this.relay = options.relay;
  }

  private readonly relay: ClientAnswerRelay | undefined;

  /** How many requests wait for an answer here. */
  get waiting(): number {
    return this.pending.size;
  }

  /**
   * Registers a server→client request for `scope` (tenant + subject).
   * @throws Error when this process already waits for `maxPending` answers.
   */
  open(scope: string): PendingClientRequest {
    if (this.pending.size >= this.maxPending) throw new Error(`too many server-to-client requests waiting (${this.maxPending})`);
    const nonce = randomBytes(16).toString('base64url');
    const id = this.sealer.seal('client-request', { r: this.replicaId, n: nonce, s: scopeHash(scope) });
    let resolve!: (answer: ClientAnswer) => void;
    const answer = new Promise<ClientAnswer>((r) => (resolve = r));
    this.pending.set(nonce, resolve);
    return { id, answer, cancel: () => void this.pending.delete(nonce) };
  }

  /** Routes the client's answer with JSON-RPC id `id`, POSTed under `scope`. */
  async deliver(scope: string, id: unknown, answer: ClientAnswer): Promise<DeliveryOutcome> {
    if (typeof id !== 'string') return 'unknown';
    const checked = this.sealer.check('client-request', id);
    if (!checked.ok) return checked.reason === 'expired' ? 'expired' : 'unknown';
    const data = checked.data;
    if (typeof data.n !== 'string' || typeof data.r !== 'string') return 'unknown';
    if (data.s !== scopeHash(scope)) return 'foreign';
    if (data.r === this.replicaId) return this.receive(data.n, answer) ? 'delivered' : 'unknown';
    if (!this.relay) return 'unknown';
    return (await this.relay.forward(data.r, data.n, answer)) ? 'delivered' : 'unknown';
  }

  /** Resolves a local waiter (called for relayed answers); false when nothing waits for `nonce`. */
  receive(nonce: string, answer: ClientAnswer): boolean {
    const resolve = this.pending.get(nonce);
    if (!resolve) return false;
    this.pending.delete(nonce);
    resolve(answer);
    return true;
  }
}

function scopeHash(scope: string): string {
  return createHash('sha256').update(scope).digest('base64url').slice(0, 22);
}
