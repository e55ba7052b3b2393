/** Every check id and its title, in report order (MCP checks first, then the OAuth chain). */
export const CHECK_TITLES = {
  'modern-discover': 'Claude opens with server/discover at 2026-07-28',
  'version-header-quirk': 'Claude quirk: MCP-Protocol-Version 2025-11-25 beside _meta 2026-07-28 is accepted',
  'legacy-initialize': 'initialize at 2025-11-25',
  'legacy-version-header': 'Follow-up request with MCP-Protocol-Version 2025-11-25 is accepted',
  'newer-version-header': 'Follow-up request with a newer MCP-Protocol-Version (2026-07-28) is accepted',
  'event-stream': 'GET with Accept: text/event-stream answers 200 text/event-stream',
  'claude-tools': 'tools/list as Claude sees it',
  'claude-no-security-schemes': 'No securitySchemes reach Claude',
  'claude-no-openai-meta': 'No openai/* or ui _meta keys reach Claude',
  'tool-titles': 'Every tool has title and annotations.title',
  'tool-hints': 'Every tool states read-only, destructive and open world (the hints publishing requires)',
  'tool-names': 'Tool names are valid on every client',
  'chatgpt-tools': 'ChatGPT lists the same tools',
  'auth-challenge': '401 challenge names the protected resource metadata',
  'prm-resource': 'PRM resource equals the connector URL exactly',
  'prm-authorization-servers': 'PRM lists an authorization server',
  'as-metadata': 'Authorization server metadata is found (RFC 8414 / OIDC)',
  'as-pkce': 'Authorization server supports PKCE S256',
  'as-registration': 'Authorization server offers CIMD or dynamic client registration',
  'dcr-claude': "Dynamic client registration with Claude's redirect URIs",
  'dcr-chatgpt': 'Dynamic client registration with ChatGPT-style metadata',
} as const;

export type CheckId = keyof typeof CHECK_TITLES;

/** Ids of the checks that need an MCP session (skipped when OAuth blocks them and no token was given). */
export const MCP_CHECK_IDS: CheckId[] = [
  'modern-discover',
  'version-header-quirk',
  'legacy-initialize',
  'legacy-version-header',
  'newer-version-header',
  'event-stream',
  'claude-tools',
  'claude-no-security-schemes',
  'claude-no-openai-meta',
  'tool-titles',
  'tool-hints',
  'tool-names',
  'chatgpt-tools',
];
