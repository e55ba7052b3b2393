/** An icon a client may show for the server (2025-11-25+). */
export interface Icon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: 'light' | 'dark';
}

/** MCP `Implementation` of this server (name, version, title and 2025-11-25 extras). */
export interface ServerInfo {
  name: string;
  version: string;
  /** Display name, known from 2025-06-18. */
  title?: string;
  /** Known from 2025-11-25. */
  description?: string;
  /** Known from 2025-11-25. */
  websiteUrl?: string;
  /** Known from 2025-11-25. */
  icons?: Icon[];
}
