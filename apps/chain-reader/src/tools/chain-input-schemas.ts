import type { ToolDefinition } from '@switchboard/catalog';

/** JSON-Schema pieces shared by the chain tools. */
export const CHAIN_PROPERTY = {
  type: 'string',
  description: 'Chain slug: eth, base, arbitrum, optimism, polygon or devnet (only configured chains answer).',
  pattern: '^[a-z0-9-]{1,32}$',
} as const;

export const ADDRESS_PROPERTY = {
  type: 'string',
  description:
    '0x-prefixed 20-byte address: all lower-case, or EIP-55 checksummed (a mixed-case address with a wrong checksum is refused).',
  pattern: '^0x[0-9a-fA-F]{40}$',
} as const;

/** The input of a tool that reads one address on one chain. */
export const CHAIN_ADDRESS_INPUT = {
  type: 'object',
  properties: { chain: CHAIN_PROPERTY, address: ADDRESS_PROPERTY },
  required: ['chain', 'address'],
  additionalProperties: false,
} as const;

/** Every chain tool only reads, the same call answers the same at one block, and it reaches a chain outside the platform. */
export function chainReadAnnotations(title: string) {
  return { title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true } as const;
}

/** The definition of a chain tool reading one address: its name, title and description are its own. */
export function chainAddressTool(name: string, title: string, description: string): ToolDefinition {
  return { name, title, description, inputSchema: CHAIN_ADDRESS_INPUT, annotations: chainReadAnnotations(title) };
}
