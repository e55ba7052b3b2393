import type { InputRequiredResult, ToolCallResult, ToolContext } from '@switchboard/catalog';
import { ErrorCode, McpError } from '@switchboard/protocol';
import type { ClientRequestBroker } from './client-request-broker';
import type { DispatchInput } from './dispatch-input';

/** Most rounds of server→client requests one legacy call may make before it is failed. */
export const MAX_CLIENT_INPUT_ROUNDS = 8;
/** Most server→client requests one round may send at once. */
export const MAX_CLIENT_INPUT_REQUESTS = 16;

type Asked = ToolCallResult | InputRequiredResult | object;

/**
 * A legacy request can ask the client through server→client requests on its own SSE stream
 * when the client said (in its sealed session) it answers them, and a broker routes answers.
 */
export function canAskClient(broker: ClientRequestBroker | undefined, input: DispatchInput): boolean {
  const caps = input.context.clientCapabilities;
  return broker !== undefined && input.sink !== undefined && caps !== undefined && Object.keys(caps).length > 0;
}

/**
 * Runs a handler; on a legacy request, an `InputRequired` answer is turned into real
 * server→client requests on the call's stream, and the handler runs again with the client's
 * answers (what a 2026-07-28 client would send back as `inputResponses`), up to
 * {@link MAX_CLIENT_INPUT_ROUNDS} rounds. Modern requests return the InputRequiredResult as is.
 */
export async function withClientInput<T extends Asked>(
  broker: ClientRequestBroker | undefined,
  input: DispatchInput,
  ctx: ToolContext,
  run: (ctx: ToolContext) => Promise<T>,
  fail: (why: string) => T,
): Promise<T> {
  let result = await run(ctx);
  if (input.context.era !== 'legacy' || ctx.input === undefined || !broker) return result;
  for (let round = 1; isInputRequired(result); round++) {
    if (round > MAX_CLIENT_INPUT_ROUNDS) return fail(`it asked the client for input more than ${MAX_CLIENT_INPUT_ROUNDS} times`);
    const asked = await askClient(broker, input, result.inputRequests ?? {});
    if (typeof asked === 'string') return fail(asked);
    result = await run({
      ...ctx,
      input: { responses: asked, ...(result.requestState === undefined ? {} : { requestState: result.requestState }) },
    });
  }
  return result;
}

/** Sends each input request to the client on the call's stream and waits for every answer; a string says why it could not. */
export async function askClient(
  broker: ClientRequestBroker,
  input: DispatchInput,
  requests: NonNullable<InputRequiredResult['inputRequests']>,
): Promise<Record<string, unknown> | string> {
  const sink = input.sink!;
  const entries = Object.entries(requests);
  if (entries.length > MAX_CLIENT_INPUT_REQUESTS)
    return `it sent ${entries.length} input requests at once (at most ${MAX_CLIENT_INPUT_REQUESTS})`;
  const scope = `${input.target.tenantId}\n${input.auth?.subject ?? ''}`;
  const pending = entries.map(([key, request]) => ({ key, request, waiter: broker.open(scope) }));
  try {
    for (const { request, waiter } of pending)
      sink.notify(JSON.stringify({ jsonrpc: '2.0', id: waiter.id, method: request.method, params: request.params ?? {} }));
    const answers = await untilAborted(Promise.all(pending.map((p) => p.waiter.answer)), input.signal);
    if (answers === undefined) return `the client did not answer ${entries.map(([, r]) => r.method).join(', ')} before the call ended`;
    const responses: Record<string, unknown> = {};
    for (const [index, answer] of answers.entries()) {
      const { key, request } = pending[index]!;
      if (answer.error)
        return `the client answered ${request.method} with error ${answer.error.code}: ${String(answer.error.message).slice(0, 200)}`;
      responses[key] = answer.result;
    }
    return responses;
  } finally {
    for (const { waiter } of pending) waiter.cancel();
  }
}

export function isInputRequired(result: unknown): result is InputRequiredResult {
  return typeof result === 'object' && result !== null && (result as { resultType?: unknown }).resultType === 'input_required';
}

/** Resolves with the promise's value, or undefined once `signal` aborts (the call timed out or the client left). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

/**
 * MRTR retry fields of a modern tools/call, resources/read or prompts/get (2026-07-28):
 * `inputResponses` (answers by key) and the echoed `requestState`.
 * @throws McpError −32602 naming the malformed field.
 */
export function mrtrInput(params: Record<string, unknown>): { responses: Record<string, unknown>; requestState?: string } {
  const responses = params.inputResponses;
  if (responses !== undefined && (typeof responses !== 'object' || responses === null || Array.isArray(responses))) {
    throw new McpError(ErrorCode.InvalidParams, 'params.inputResponses must be an object of responses keyed like the inputRequests');
  }
  const requestState = params.requestState;
  if (requestState !== undefined && typeof requestState !== 'string') {
    throw new McpError(ErrorCode.InvalidParams, 'params.requestState must be a string');
  }
  const out: { responses: Record<string, unknown>; requestState?: string } = {
    responses: (responses as Record<string, unknown> | undefined) ?? {},
  };
  if (requestState !== undefined) out.requestState = requestState;
  return out;
}
