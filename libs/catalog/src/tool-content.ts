import type { ContentBlock } from './content';

/**
 * Content blocks a tool returns as-is (images, audio, embedded resources, links): a
 * `payload` that returns `Tool.content([...])` skips the default JSON/text rendering.
 */
export class ToolContent {
  constructor(
    readonly blocks: ContentBlock[],
    /** Sent as `structuredContent` when present (tools with an `outputSchema` must send it). */
    readonly structured?: unknown,
  ) {}
}
