import { ToolError } from '@switchboard/catalog';

/**
 * Stable codes of every expected chain-reader failure. They travel as `details.code` of a
 * ToolError (an `isError` tool result), never as a wire error or an HTTP 500.
 */
export const CHAIN_ERROR_CODES = {
  UNKNOWN_CHAIN: 'CR_UNKNOWN_CHAIN',
  CHAIN_NOT_CONFIGURED: 'CR_CHAIN_NOT_CONFIGURED',
  RPC_UNAVAILABLE: 'CR_RPC_UNAVAILABLE',
  BAD_ADDRESS: 'CR_BAD_ADDRESS',
  BAD_CHECKSUM: 'CR_BAD_CHECKSUM',
  BAD_INPUT: 'CR_BAD_INPUT',
  NOT_A_CONTRACT: 'CR_NOT_A_CONTRACT',
  NOT_A_POOL: 'CR_NOT_A_POOL',
  POOL_NOT_INITIALIZED: 'CR_POOL_NOT_INITIALIZED',
  BLOCK_NOT_FOUND: 'CR_BLOCK_NOT_FOUND',
  CALLDATA_TOO_LARGE: 'CR_CALLDATA_TOO_LARGE',
  BAD_ABI: 'CR_BAD_ABI',
  UNKNOWN_FUNCTION: 'CR_UNKNOWN_FUNCTION',
  AMBIGUOUS_FUNCTION: 'CR_AMBIGUOUS_FUNCTION',
  BAD_ARGUMENT: 'CR_BAD_ARGUMENT',
  NOT_VIEW: 'CR_NOT_VIEW',
  REVERTED: 'CR_REVERTED',
  BAD_RESULT: 'CR_BAD_RESULT',
} as const;

export type ChainErrorCode = (typeof CHAIN_ERROR_CODES)[keyof typeof CHAIN_ERROR_CODES];

/**
 * Longest error message a tool answers with. Every message names the field first, so the cap
 * only ever cuts echoed input or upstream text (a 1,000,000-digit argument must not come back
 * as a megabyte of error).
 */
export const MAX_ERROR_MESSAGE_CHARS = 1_000;
/** Longest piece of caller input quoted inside an error message. */
export const MAX_ECHO_CHARS = 80;

/** `value` as JSON for an error message, cut to MAX_ECHO_CHARS with the full length said. */
export function echoValue(value: unknown): string {
  let text: string;
  if (typeof value === 'string') {
    text = value.length > MAX_ECHO_CHARS ? JSON.stringify(value.slice(0, MAX_ECHO_CHARS)).slice(0, -1) : JSON.stringify(value);
    return value.length > MAX_ECHO_CHARS ? `${text}…" (${value.length} chars)` : text;
  }
  if (typeof value === 'bigint') text = value.toString();
  else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      text = String(value);
    }
  }
  return text.length > MAX_ECHO_CHARS ? `${text.slice(0, MAX_ECHO_CHARS)}… (${text.length} chars)` : text;
}

function capMessage(message: string): string {
  return message.length > MAX_ERROR_MESSAGE_CHARS
    ? `${message.slice(0, MAX_ERROR_MESSAGE_CHARS)}… (message cut at ${MAX_ERROR_MESSAGE_CHARS} of ${message.length} chars)`
    : message;
}

/** A ToolError carrying a chain-reader code and structured details; the cause is kept. The message is capped at MAX_ERROR_MESSAGE_CHARS. */
export function chainError(code: ChainErrorCode, message: string, details: Record<string, unknown> = {}, cause?: unknown): ToolError {
  return new ToolError(capMessage(message), { code, ...details }, cause === undefined ? undefined : { cause });
}

/** The code of a chain-reader ToolError, else undefined. */
export function chainErrorCode(err: unknown): string | undefined {
  if (err instanceof ToolError && typeof err.details?.['code'] === 'string') return err.details['code'];
  return undefined;
}
