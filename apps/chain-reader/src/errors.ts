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
  BAD_INPUT: 'CR_BAD_INPUT',
  NOT_A_CONTRACT: 'CR_NOT_A_CONTRACT',
  NOT_A_POOL: 'CR_NOT_A_POOL',
  BAD_ABI: 'CR_BAD_ABI',
  UNKNOWN_FUNCTION: 'CR_UNKNOWN_FUNCTION',
  AMBIGUOUS_FUNCTION: 'CR_AMBIGUOUS_FUNCTION',
  BAD_ARGUMENT: 'CR_BAD_ARGUMENT',
  NOT_VIEW: 'CR_NOT_VIEW',
  REVERTED: 'CR_REVERTED',
  BAD_RESULT: 'CR_BAD_RESULT',
} as const;

export type ChainErrorCode = (typeof CHAIN_ERROR_CODES)[keyof typeof CHAIN_ERROR_CODES];

/** A ToolError carrying a chain-reader code and structured details; the cause is kept. */
export function chainError(code: ChainErrorCode, message: string, details: Record<string, unknown> = {}, cause?: unknown): ToolError {
  return new ToolError(message, { code, ...details }, cause === undefined ? undefined : { cause });
}

/** The code of a chain-reader ToolError, else undefined. */
export function chainErrorCode(err: unknown): string | undefined {
  if (err instanceof ToolError && typeof err.details?.['code'] === 'string') return err.details['code'];
  return undefined;
}
