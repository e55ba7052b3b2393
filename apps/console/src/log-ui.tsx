import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

// The pieces the Activity and Calls logs share: cursor paging and the row detail drawer.

/** "Newer" / "Older" for a cursor-paged log, with the page number. */
export function Pager({
  page,
  loading,
  onNewer,
  onOlder,
}: {
  page: number;
  loading: boolean;
  onNewer: (() => void) | undefined;
  onOlder: (() => void) | undefined;
}) {
  return (
    <nav class="row pager" aria-label="Pages">
      <button type="button" disabled={!onNewer || loading} onClick={onNewer}>
        ← Newer
      </button>
      <span class="muted small" data-testid="page-number">
        Page {page}
      </span>
      <button type="button" disabled={!onOlder || loading} onClick={onOlder}>
        Older →
      </button>
    </nav>
  );
}

/** A side panel with one log row's details: focus moves to its heading; Escape or Close shuts it. */
export function DetailDrawer({ title, onClose, children }: { title: string; onClose: () => void; children: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [title]);
  return (
    <aside class="drawer" aria-labelledby="detail-h" data-testid="detail-drawer" onKeyDown={(e) => e.key === 'Escape' && onClose()}>
      <div class="drawer-head">
        <h2 id="detail-h" tabIndex={-1} ref={heading}>
          {title}
        </h2>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
      {children}
    </aside>
  );
}
