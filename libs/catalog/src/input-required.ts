import type { InputRequest, InputRequiredResult } from './content';

/**
 * "I need more from the client first" (MRTR, 2026-07-28 `InputRequiredResult`): a tool's
 * `payload` or a prompt's `messages` returns `Tool.inputRequired(...)` / `new InputRequired(...)`
 * and the client retries the same request with `inputResponses` (same keys) and the echoed
 * `requestState`, which the handler reads from `ctx.input`. Only modern-era requests can carry
 * it: a handler checks `ctx.input` (undefined on legacy requests) before asking.
 */
export class InputRequired {
  constructor(
    readonly inputRequests: Record<string, InputRequest>,
    /** Opaque to the client; a handler that relies on it must integrity-protect it (it comes back from the client). */
    readonly requestState?: string,
  ) {}

  /** The wire result. */
  toResult(): InputRequiredResult {
    return this.requestState === undefined
      ? { resultType: 'input_required', inputRequests: this.inputRequests }
      : { resultType: 'input_required', inputRequests: this.inputRequests, requestState: this.requestState };
  }
}
