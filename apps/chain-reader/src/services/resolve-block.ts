import { CHAIN_ERROR_CODES, chainError, echoValue } from '../errors';
import type { ChainRpc } from '../rpc/chain-rpc';

/** The concrete block an answer is read at, and whether the caller asked for `latest`. */
export interface ResolvedBlock {
  block: bigint;
  latest: boolean;
}

/**
 * `block_number` input → a concrete block: `latest` (or absent) is the chain's cached head; an
 * explicit number must not be beyond the head. @throws CR_BAD_INPUT / CR_BLOCK_NOT_FOUND naming `block_number`.
 */
export async function resolveBlock(rpc: ChainRpc, value: unknown): Promise<ResolvedBlock> {
  if (value === undefined || value === null || value === 'latest') return { block: await rpc.head(), latest: true };
  let block: bigint;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) block = BigInt(value);
  else if (typeof value === 'string' && /^\d{1,20}$/.test(value)) block = BigInt(value);
  else
    throw chainError(CHAIN_ERROR_CODES.BAD_INPUT, `block_number: must be a non-negative integer or "latest", got ${echoValue(value)}`, {
      field: 'block_number',
    });
  let head = await rpc.head();
  // The cached head may be a moment old: ask again before calling the block "not there yet".
  if (block > head) head = await rpc.head({ fresh: true });
  if (block > head) {
    throw chainError(
      CHAIN_ERROR_CODES.BLOCK_NOT_FOUND,
      `block_number: ${block} is beyond the head of chain "${rpc.slug}" (block ${head})`,
      { field: 'block_number', head: Number(head) },
    );
  }
  return { block, latest: false };
}
