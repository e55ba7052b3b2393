// The proposed publication the Preview page compiles before anything goes live. Kept in
// sessionStorage so a reload of /console/preview?draft keeps showing the same draft.
import type { ToolOverrides } from './api';

const DRAFT_STORAGE = 'switchboard.draft';

/** One item of a proposed publication (the `POST /v1/publications` item shape). */
export interface DraftItem {
  kind: 'tool';
  name: string;
  exposedName?: string;
  overrides: ToolOverrides;
  /** Publish despite the tool's poisoned-tool findings, reviewed in the Tools page. */
  acknowledgeFindings?: boolean;
}

/** A proposed publication: the body of `POST /v1/publications` and of the draft `POST /v1/preview`. */
export interface Draft {
  serverId: string;
  items: DraftItem[];
}

function isDraft(v: unknown): v is Draft {
  if (typeof v !== 'object' || v === null) return false;
  const d = v as Record<string, unknown>;
  const obj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
  return (
    typeof d.serverId === 'string' &&
    Array.isArray(d.items) &&
    d.items.every((i) => obj(i) && typeof i.name === 'string' && obj(i.overrides))
  );
}

/** The draft of this tab, if any (a corrupt stored value counts as none). */
export const draftStore = {
  get(): Draft | undefined {
    try {
      const raw = sessionStorage.getItem(DRAFT_STORAGE);
      const parsed: unknown = raw ? JSON.parse(raw) : undefined;
      return isDraft(parsed) ? parsed : undefined;
    } catch {
      return undefined;
    }
  },
  set(draft: Draft): void {
    sessionStorage.setItem(DRAFT_STORAGE, JSON.stringify(draft));
  },
  clear(): void {
    try {
      sessionStorage.removeItem(DRAFT_STORAGE);
    } catch {
      // Storage unavailable: nothing was stored either.
    }
  },
};
