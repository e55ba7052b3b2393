/** MCP `Implementation` of this server (name, version, title and 2025-11-25 extras). */
export interface ServerInfo {
  name: string;
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
}
