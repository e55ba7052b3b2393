import type { CatalogSnapshot } from './definitions';

/** Content hash (sha256 hex of canonical JSON with sorted keys) of a snapshot without its `version`. */
export function hashSnapshot(snapshot: Omit<CatalogSnapshot, 'version'>): string {
  void snapshot;
  throw new Error('not implemented');
}
