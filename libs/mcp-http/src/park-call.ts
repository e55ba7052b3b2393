import type { InputRequiredResult, ToolCallResult, ToolContext } from '@switchboard/catalog';
import { MAX_CLIENT_INPUT_REQUESTS, isInputRequired } from './client-input';
import type { DispatchInput } from './dispatch-input';
import type { InvokeContext } from './invoke-context';
import type { ParkedCalls } from './parked-calls';

/** Notifications a parked call sends between an input_required round and its retry that are kept for the retry. */
const MAX_HELD_NOTIFICATIONS = 32;

/**
 * A modern upstream call whose upstream may ask the client mid-call (a legacy upstream's
 * `elicitation/create`): the call is parked and the client gets `input_required`; its retry
 * (`requestState` naming the park) resumes it on whichever replica holds it.
 */
export async function callParkable(
  parked: ParkedCalls,
  input: DispatchInput,
  name: string,
  ctx: InvokeContext & ToolContext,
  call: (c: InvokeContext) => Promise<ToolCallResult>,
): Promise<ToolCallResult | InputRequiredResult> {
  const scope = `${input.target.tenantId}\n${input.auth?.subject ?? ''}`;
  const state = ctx.input?.requestState;
  let upstreamCtx: InvokeContext & ToolContext = ctx;
  if (state !== undefined) {
    const resumed = await parked.resume(scope, name, state, ctx.input?.responses ?? {}, ctx);
    if (resumed !== undefined) return resumed as ToolCallResult | InputRequiredResult;
    // Not a park: a 2026-07-28 upstream's own state, sealed by us for this caller and tool.
    upstreamCtx = { ...ctx, input: { responses: ctx.input?.responses ?? {}, requestState: parked.openUpstreamState(scope, name, state) } };
  }
  // A 2026-07-28 upstream's input_required goes to the client with its state sealed.
  const relayed = async (c: InvokeContext): Promise<ToolCallResult | InputRequiredResult> => {
    const result = (await call(c)) as ToolCallResult | InputRequiredResult;
    if (!isInputRequired(result)) return result;
    const requests = Object.keys(result.inputRequests ?? {}).length;
    if (requests > MAX_CLIENT_INPUT_REQUESTS)
      return toolFailure(name, `the upstream asked ${requests} input requests at once (at most ${MAX_CLIENT_INPUT_REQUESTS})`);
    if (typeof result.requestState !== 'string') return result;
    try {
      return { ...result, requestState: parked.sealUpstreamState(scope, name, result.requestState) };
    } catch (err) {
      return toolFailure(name, (err as Error).message);
    }
  };
  const caps = input.context.clientCapabilities;
  if (caps === undefined || !['elicitation', 'sampling', 'roots'].some((c) => Object.hasOwn(caps, c))) return relayed(upstreamCtx);
  // Each retry is a new request (with its own progress token): the call's notifications go to
  // the one the client waits on, and those sent between a round and its retry wait for the retry.
  return (await parked.start(
    input.target.tenantId,
    scope,
    name,
    (ask, signal, legs) => {
      const pending: Array<(c: InvokeContext) => void> = [];
      const send = (fn: (c: InvokeContext) => void): void => {
        const leg = legs.current() as InvokeContext | undefined;
        if (leg) fn(leg);
        else if (pending.length < MAX_HELD_NOTIFICATIONS) pending.push(fn);
      };
      legs.onNext(() => {
        const leg = legs.current() as InvokeContext;
        for (const fn of pending.splice(0)) fn(leg);
      });
      return relayed({
        ...upstreamCtx,
        askClient: ask,
        signal: AbortSignal.any([ctx.signal, signal]),
        // Between a round and its retry nothing is relayed yet, but what comes is held for the retry.
        relaying: () => (legs.current() as InvokeContext | undefined)?.relaying?.() !== false,
        progress: (...a) => send((c) => c.progress(...a)),
        log: (...a) => send((c) => c.log(...a)),
        resourceUpdated: (uri) => send((c) => c.resourceUpdated?.(uri)),
      });
    },
    ctx,
  )) as ToolCallResult | InputRequiredResult;
}

/** A tool result saying why the call failed (the client sees a tool error, not a protocol one). */
export function toolFailure(name: string, why: string): ToolCallResult {
  return { isError: true, content: [{ type: 'text', text: `Tool ${name} failed: ${why}` }] };
}
