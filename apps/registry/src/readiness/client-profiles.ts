/** The protocol revisions the checks replay. */
export const MODERN_VERSION = '2026-07-28';
export const LEGACY_VERSION = '2025-11-25';

/** What claude.ai / Claude Desktop send (the User-Agent and Origin the gateway's surface rules key on). */
export const CLAUDE = {
  headers: { 'user-agent': 'Claude-User/1.0 (+https://claude.ai)', origin: 'https://claude.ai' },
  clientInfo: { name: 'claude-ai', version: '0.1.0' },
  redirectUris: ['https://claude.ai/api/mcp/auth_callback', 'https://claude.com/api/mcp/auth_callback'],
} as const;

/** What ChatGPT's connector platform sends. */
export const CHATGPT = {
  headers: { 'user-agent': 'openai-mcp/1.0.0', origin: 'https://chatgpt.com' },
  clientInfo: { name: 'openai-mcp', version: '1.0.0' },
  redirectUris: ['https://chatgpt.com/connector_platform_oauth_redirect'],
} as const;

/** Valid tool names on every surface (MCP 2025-11-25 charset, 64 = the strictest surface). */
export const TOOL_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
