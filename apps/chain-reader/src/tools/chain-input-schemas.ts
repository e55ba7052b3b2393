/** JSON-Schema pieces shared by the chain tools. */
export const CHAIN_PROPERTY = {
  type: 'string',
  description: 'Chain slug: eth, base, arbitrum, optimism, polygon or devnet (only configured chains answer).',
  pattern: '^[a-z0-9-]{1,32}$',
} as const;

export const ADDRESS_PROPERTY = {
  type: 'string',
  description: '0x-prefixed 20-byte address: all lower-case, or EIP-55 checksummed (a mixed-case address with a wrong checksum is refused).',
  pattern: '^0x[0-9a-fA-F]{40}$',
} as const;
