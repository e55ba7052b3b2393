import { createHash, randomBytes } from 'node:crypto';
import { ErrorCode, McpError } from '@switchboard/protocol';
import type { StateSealer } from './state-sealer';

/** Asks the client of a parked call one server→client request; resolves with the client's answer. */
export type ParkedAsk = (method: string, params: Record<string, unknown>) => Promise<unknown>;

/**
 * The request legs of a parked call (each retry of a 2026-07-28 client is a new request with its
 * own progress token): `current()` is the one the client waits on now, undefined between a round
 * and its retry; `onNext` is told when a retry becomes the current leg.
 */
export interface ParkLegs {
  current(): unknown;
  onNext(fn: () => void): void;
}

/** The answers of a modern retry, sent to the replica that holds the call. */
export interface ParkResume {
  nonce: string;
  round: number;
  responses: Record<string, unknown>;
}

/**
 * Carries a retry's answers to the replica holding the parked call and brings back that call's
 * next outcome (the gateway uses Redis pub/sub). Resolves undefined when no replica took it.
 * @throws McpError the holder's refusal (a spent or unknown round).
 */
export interface ParkRelay {
  resume(replicaId: string, message: ParkResume): Promise<object | undefined>;
}

/** Bounds of {@link ParkedCalls}. */
export interface ParkedCallsOptions {
  replicaId?: string;
  relay?: ParkRelay;
  /** Calls parked in this process at once (each holds an upstream call open). Default 1000. */
  maxParked?: number;
  /** Calls one tenant may have parked in this process (a hostile tenant's upstream could ask forever). Default 50. */
  maxPerTenant?: number;
  /** How long a parked call waits for the client's retry before its questions fail. Default 120 s. */
  waitMs?: number;
  /** Most server→client requests one round may carry. Default 16. */
  maxAsksPerRound?: number;
}

interface Ask {
  method: string;
  params: Record<string, unknown>;
  resolve(value: unknown): void;
  reject(err: Error): void;
}

interface Park {
  tenantId: string;
  round: number;
  asks: Ask[];
  /** Resolves the request currently waiting for this call's next outcome (none between rounds). */
  deliver: ((outcome: object) => void) | undefined;
  /** The call ended between rounds: handed to the next retry. */
  final: object | undefined;
  flushing: boolean;
  timer: NodeJS.Timeout | undefined;
  abort: AbortController;
  registered: boolean;
  /** The request leg the client waits on now (each retry is a new request): where the call's notifications go. */
  leg: unknown;
  onLeg: (() => void) | undefined;
}

/**
 * How a JSON-RPC error the call ended with travels as an outcome (also between replicas, as
 * JSON): the client gets it as the error it is, as it would without a park.
 */
const RPC_ERROR = 'switchboard/rpcError';

/**
 * Modern (2026-07-28) clients answer server→client requests by retrying the call with
 * `inputResponses`; a legacy upstream instead asks *during* its call and waits on its open
 * stream. The call is parked: it keeps running on this replica while the client gets an
 * `input_required` result whose sealed `requestState` names this replica, the park and its
 * round. The retry may land on any replica: here it resumes the park, elsewhere the relay
 * carries the answers to this replica and the next outcome back. Parks are bounded per
 * process and per tenant, and each round waits a bounded time.
 */
export class ParkedCalls {
  readonly replicaId: string;
  private readonly parks = new Map<string, Park>();
  private readonly perTenant = new Map<string, number>();
  private readonly relay: ParkRelay | undefined;
  private readonly maxParked: number;
  private readonly maxPerTenant: number;
  private readonly waitMs: number;
  private readonly maxAsks: number;

  constructor(
    private readonly sealer: StateSealer,
    options: ParkedCallsOptions = {},
  ) {
    this.replicaId = options.replicaId ?? randomBytes(8).toString('hex');
    this.relay = options.relay;
    this.maxParked = options.maxParked ?? 1000;
    this.maxPerTenant = options.maxPerTenant ?? 50;
    this.waitMs = options.waitMs ?? 120_000;
    this.maxAsks = options.maxAsksPerRound ?? 16;
  }

  /** Calls parked here now. */
  get parked(): number {
    return this.parks.size;
  }

  /**
   * Runs `run` with an `ask` that parks the call: resolves with the call's result when it
   * never asks, else with an `input_required` result for the client (the call keeps running).
   * `leg` is the first request's (see {@link resume}); `run` reads the current one with `current()`.
   * @throws McpError the JSON-RPC error the call failed with (any other failure is an isError result).
   */
  start(
    tenantId: string,
    scope: string,
    tool: string,
    run: (ask: ParkedAsk, signal: AbortSignal, legs: ParkLegs) => Promise<object>,
    leg?: unknown,
  ): Promise<object> {
    const nonce = randomBytes(16).toString('base64url');
    const park: Park = {
      tenantId,
      round: 0,
      asks: [],
      deliver: undefined,
      final: undefined,
      flushing: false,
      timer: undefined,
      abort: new AbortController(),
      registered: false,
      leg,
      onLeg: undefined,
    };
    const legs: ParkLegs = { current: () => park.leg, onNext: (fn) => (park.onLeg = fn) };
    const first = new Promise<object>((resolve) => (park.deliver = resolve));
    const seal = (round: number) =>
      this.sealer.seal('request-state', { k: 'park', r: this.replicaId, n: nonce, q: round, s: scopeHash(scope), t: tool });
    const ask: ParkedAsk = (method, params) =>
      new Promise((resolve, reject) => {
        if (!park.registered) {
          const mine = this.perTenant.get(tenantId) ?? 0;
          if (this.parks.size >= this.maxParked)
            return reject(new Error(`too many calls wait for client input on this gateway (${this.maxParked})`));
          if (mine >= this.maxPerTenant)
            return reject(new Error(`tenant ${tenantId} already has ${mine} calls waiting for client input (limit ${this.maxPerTenant})`));
          park.registered = true;
          this.parks.set(nonce, park);
          this.perTenant.set(tenantId, mine + 1);
        }
        if (park.asks.length >= this.maxAsks) return reject(new Error(`more than ${this.maxAsks} requests to the client at once`));
        park.asks.push({ method, params, resolve, reject });
        if (park.flushing) return;
        park.flushing = true;
        // Requests the upstream sends together go to the client in one input_required result.
        setImmediate(() => {
          park.flushing = false;
          const deliver = park.deliver;
          if (!deliver || park.asks.length === 0) return;
          park.deliver = undefined;
          park.round += 1;
          const inputRequests = Object.fromEntries(park.asks.map((a, i) => [`q${i}`, { method: a.method, params: a.params }]));
          park.timer = setTimeout(() => this.expire(park), this.waitMs);
          park.timer.unref?.();
          deliver({ resultType: 'input_required', inputRequests, requestState: seal(park.round) });
          park.leg = undefined;
        });
      });
    const end = (outcome: object) => {
      if (park.timer) clearTimeout(park.timer);
      const deliver = park.deliver;
      park.deliver = undefined;
      if (deliver) deliver(outcome);
      else park.final = outcome;
      // A final outcome stays for one waiting period, for the retry that is already under way.
      if (park.registered) {
        park.timer = setTimeout(() => this.forget(nonce, park), deliver ? 0 : this.waitMs);
        park.timer.unref?.();
      }
    };
    run(ask, park.abort.signal, legs).then(end, (err: unknown) =>
      end(
        err instanceof McpError
          ? { [RPC_ERROR]: { code: err.code, message: err.message, ...(err.data === undefined ? {} : { data: err.data }) } }
          : { isError: true, content: [{ type: 'text', text: `Tool ${tool} failed: ${(err as Error)?.message ?? String(err)}` }] },
      ),
    );
    return first.then(settled);
  }

  /**
   * Resumes the parked call a modern retry's `requestState` names, here or through the relay.
   * Resolves undefined when the state is not a park's (a stateless upstream's own state).
   * @throws McpError −32602 when the state belongs to another caller or tool, or its round is spent.
   */
  async resume(
    scope: string,
    tool: string,
    requestState: string,
    responses: Record<string, unknown>,
    leg?: unknown,
  ): Promise<object | undefined> {
    const checked = this.sealer.check('request-state', requestState);
    if (!checked.ok && checked.reason === 'expired')
      throw new McpError(ErrorCode.InvalidParams, 'params.requestState has expired; call the tool again');
    const data = checked.ok ? checked.data : undefined;
    if (!data || data.k !== 'park') return undefined;
    if (data.s !== scopeHash(scope) || data.t !== tool)
      throw new McpError(ErrorCode.InvalidParams, 'params.requestState was issued for another caller or tool');
    const message: ParkResume = { nonce: String(data.n), round: Number(data.q), responses };
    // Held here, the call's later notifications follow the client to this retry; through the relay they stay with the holder's last leg.
    if (data.r === this.replicaId) return settled(await this.resumeLocal(message, leg));
    const outcome = this.relay ? await this.relay.resume(String(data.r), message) : undefined;
    if (outcome === undefined) {
      return {
        isError: true,
        content: [
          {
            type: 'text',
            text: `Tool ${tool} failed: the gateway replica running this call is gone or did not answer; call the tool again`,
          },
        ],
      };
    }
    return settled(outcome);
  }

  /**
   * Seals a 2026-07-28 upstream's own `requestState` for the client, bound to the caller and
   * tool (the upstream sees only the gateway's credential, so it cannot tell callers apart).
   * @throws Error when the upstream's state exceeds {@link MAX_UPSTREAM_STATE_CHARS}.
   */
  sealUpstreamState(scope: string, tool: string, state: string): string {
    if (state.length > MAX_UPSTREAM_STATE_CHARS)
      throw new Error(`the upstream's requestState has ${state.length} characters (at most ${MAX_UPSTREAM_STATE_CHARS} are relayed)`);
    return this.sealer.seal('request-state', { k: 'up', s: scopeHash(scope), t: tool, u: state });
  }

  /**
   * The upstream's own state inside a client's `requestState`.
   * @throws McpError −32602 when the gateway did not issue it for this caller and tool.
   */
  openUpstreamState(scope: string, tool: string, token: string): string {
    const data = this.sealer.open('request-state', token);
    if (!data || data.k !== 'up' || typeof data.u !== 'string')
      throw new McpError(
        ErrorCode.InvalidParams,
        'params.requestState was not issued by this gateway for this call (altered, expired key, or from another server)',
      );
    if (data.s !== scopeHash(scope) || data.t !== tool)
      throw new McpError(ErrorCode.InvalidParams, 'params.requestState was issued for another caller or tool');
    return data.u;
  }

  /**
   * Answers the parked call's questions of `round` and waits for its next outcome.
   * @throws McpError −32602 for an unknown park or a spent round.
   */
  resumeLocal(message: ParkResume, leg?: unknown): Promise<object> {
    const park = this.parks.get(message.nonce);
    if (!park)
      throw new McpError(
        ErrorCode.InvalidParams,
        'params.requestState: this call is no longer waiting (it ended, timed out, or its gateway replica restarted); call the tool again',
      );
    if (park.final !== undefined) {
      const final = park.final;
      this.forget(message.nonce, park);
      return Promise.resolve(final);
    }
    if (park.round !== message.round || park.deliver !== undefined || park.asks.length === 0) {
      throw new McpError(ErrorCode.InvalidParams, `params.requestState: round ${message.round} of this call was already answered`);
    }
    if (park.timer) clearTimeout(park.timer);
    const next = new Promise<object>((resolve) => (park.deliver = resolve));
    if (leg !== undefined) {
      park.leg = leg;
      park.onLeg?.();
    }
    const asks = park.asks;
    park.asks = [];
    asks.forEach((a, i) => {
      const key = `q${i}`;
      if (Object.hasOwn(message.responses, key)) a.resolve(message.responses[key]);
      else a.reject(new Error(`the client sent no inputResponses.${key} (${a.method})`));
    });
    return next;
  }

  private expire(park: Park): void {
    const asks = park.asks;
    park.asks = [];
    for (const a of asks) a.reject(new Error(`the client did not answer ${a.method} within ${this.waitMs} ms`));
  }

  private forget(nonce: string, park: Park): void {
    if (this.parks.get(nonce) !== park) return;
    this.parks.delete(nonce);
    park.abort.abort(new Error('the parked call was dropped'));
    const n = (this.perTenant.get(park.tenantId) ?? 1) - 1;
    if (n <= 0) this.perTenant.delete(park.tenantId);
    else this.perTenant.set(park.tenantId, n);
  }
}

/** Longest upstream `requestState` relayed to a client (it is sealed, and sealed tokens are bounded at 8 KiB). */
export const MAX_UPSTREAM_STATE_CHARS = 4096;

/** An outcome for the client: a call's JSON-RPC error is thrown as one. */
function settled(outcome: object): object {
  const rpc = (outcome as Record<string, unknown>)[RPC_ERROR] as { code: number; message: string; data?: unknown } | undefined;
  if (rpc === undefined) return outcome;
  throw new McpError(rpc.code, rpc.message, rpc.data);
}

function scopeHash(scope: string): string {
  return createHash('sha256').update(scope).digest('base64url').slice(0, 22);
}
