import type { ResourceEntry, ToolEntry } from '../definitions';

export type { ResourceEntry, Route, ToolEntry } from '../definitions';

/** The entries of a snapshot part that carry MCP Apps URIs. */
export interface SnapshotPartEntries {
  tools?: readonly ToolEntry[];
  resources?: readonly ResourceEntry[];
}
