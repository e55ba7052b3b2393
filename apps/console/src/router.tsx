import { useEffect, useState } from 'preact/hooks';

/** The console lives under /console/; pages are /console/<page>. */
export const BASE = '/console/';

export const PAGES = [
  { id: 'servers', label: 'Servers' },
  { id: 'tools', label: 'Tools' },
  { id: 'preview', label: 'Preview' },
  { id: 'connect', label: 'Connect' },
  { id: 'readiness', label: 'Readiness' },
  { id: 'activity', label: 'Activity' },
] as const;

export type PageId = (typeof PAGES)[number]['id'];

function current(): PageId {
  const rest = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : '';
  const id = rest.split('/')[0];
  return PAGES.some((p) => p.id === id) ? (id as PageId) : 'servers';
}

/** Navigates without a reload (history API; the registry serves index.html for every client route). `search` e.g. `?draft`. */
export function navigate(page: PageId, search = ''): void {
  if (current() === page && location.pathname !== BASE && location.search === search) return;
  history.pushState(null, '', `${BASE}${page}${search}`);
  dispatchEvent(new PopStateEvent('popstate'));
}

/** The address bar's query string (`?draft`), following navigation and back/forward. */
export function useSearch(): string {
  const [search, setSearch] = useState(location.search);
  useEffect(() => {
    const on = () => setSearch(location.search);
    addEventListener('popstate', on);
    return () => removeEventListener('popstate', on);
  }, []);
  return search;
}

/** The page in the address bar, following back/forward. */
export function usePage(): PageId {
  const [page, setPage] = useState<PageId>(current());
  useEffect(() => {
    const on = () => setPage(current());
    addEventListener('popstate', on);
    return () => removeEventListener('popstate', on);
  }, []);
  return page;
}
