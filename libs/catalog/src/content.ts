/** MCP content blocks and call results, as they go on the wire. */
export interface TextContent {
  type: 'text';
  text: string;
  annotations?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}
export interface ImageContent {
  type: 'image';
  data: string;
  mimeType: string;
  annotations?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}
export interface AudioContent {
  type: 'audio';
  data: string;
  mimeType: string;
  annotations?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}
export interface ResourceContents {
  uri: string;
  mimeType?: string;
  text?: string;
  blob?: string;
  _meta?: Record<string, unknown>;
}
export interface EmbeddedResource {
  type: 'resource';
  resource: ResourceContents;
  annotations?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}
export interface ResourceLink {
  type: 'resource_link';
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  _meta?: Record<string, unknown>;
}
export type ContentBlock = TextContent | ImageContent | AudioContent | EmbeddedResource | ResourceLink;

export interface ToolCallResult {
  content: ContentBlock[];
  structuredContent?: unknown;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

export interface PromptMessage {
  role: 'user' | 'assistant';
  content: ContentBlock;
}

export interface GetPromptResult {
  description?: string;
  messages: PromptMessage[];
  _meta?: Record<string, unknown>;
}

export interface ReadResourceResult {
  contents: ResourceContents[];
  _meta?: Record<string, unknown>;
}

/** One server→client request carried inside an `InputRequiredResult` (MRTR, 2026-07-28). */
export interface InputRequest {
  method: 'elicitation/create' | 'sampling/createMessage' | 'roots/list';
  params: Record<string, unknown>;
}

/** 2026-07-28: the request cannot finish until the client answers `inputRequests` and retries. */
export interface InputRequiredResult {
  resultType: 'input_required';
  inputRequests?: Record<string, InputRequest>;
  requestState?: string;
  _meta?: Record<string, unknown>;
}
