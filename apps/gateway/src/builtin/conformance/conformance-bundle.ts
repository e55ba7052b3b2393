import type { LocalBundle } from '@switchboard/catalog';

/** The fixture set the official conformance suite expects (MCP-NOTES §1.5). */
export const conformanceBundle: LocalBundle = {
  id: 'conformance',
  server: { name: 'switchboard-conformance', version: '0.1.0', title: 'Switchboard conformance tenant' },
  tools: [],
};
