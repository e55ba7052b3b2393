import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json';
import type { CatalogSnapshot } from './definitions';

/** Entry digests of deep-frozen entries (bundle entries shared by every tenant built from one bundle). */
const frozenDigests = new WeakMap<object, string>();

/**
 * Content hash (sha256 hex) of a snapshot without its `version`: the canonical JSON (sorted keys)
 * of its other fields, then each list (tools, resources, templates, prompts) as the sha256 of
 * each entry's canonical JSON. Equal content gives equal hashes however it was built; and an
 * entry shared by many snapshots (frozen, from one bundle) is hashed once, so versioning ten
 * thousand tenants of one fixture costs ten thousand small hashes, not ten thousand copies of
 * the whole catalog.
 */
export function hashSnapshot(snapshot: Omit<CatalogSnapshot, 'version'>): string {
  // A full snapshot may be passed at runtime; its own version must not feed its hash.
  const {
    version: _ignored,
    tools,
    resources,
    resourceTemplates,
    prompts,
    ...rest
  } = snapshot as Omit<CatalogSnapshot, 'version'> & {
    version?: string;
  };
  const lists = [tools, resources, resourceTemplates, prompts].map((list) => list.map(entryDigest).join(','));
  return sha256(`${canonicalJson(rest)}\n${lists.join('\n')}`);
}

function entryDigest(entry: object): string {
  const known = frozenDigests.get(entry);
  if (known !== undefined) return known;
  const digest = sha256(canonicalJson(entry));
  // Only a deep-frozen entry cannot change under its digest (its canonical text is memoised then too).
  if (isDeepFrozen(entry)) frozenDigests.set(entry, digest);
  return digest;
}

function isDeepFrozen(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (!Object.isFrozen(value)) return false;
  for (const member of Object.values(value)) if (!isDeepFrozen(member)) return false;
  return true;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
