import { useEffect, useState } from 'preact/hooks';

/** The console lives under /console/; pages are /console/<page>. */
export const BASE = '/console/';

const PAGE_IDS = [
  'home',
  'servers',
  'tools',
  'review',
  'preview',
  'connect',
  'readiness',
  'usage',
  'calls',
  'activity',
  'limits',
  'team',
  'users',
  'settings',
  'auth',
  'webhooks',
  'enterprise',
  'guardrails',
] as const;

/** A page of the console, or `notfound` for an address that names none (never in the menu). */
export type PageId = (typeof PAGE_IDS)[number] | 'notfound';

/** The menu's groups, in the order a tenant goes through them. */
export const NAV_GROUPS = ['Build', 'Ship', 'Observe', 'Configure'] as const;

const GROUP_OF: Record<(typeof PAGE_IDS)[number], (typeof NAV_GROUPS)[number] | null> = {
  home: null,
  servers: 'Build',
  tools: 'Build',
  review: 'Build',
  preview: 'Build',
  connect: 'Ship',
  readiness: 'Ship',
  usage: 'Observe',
  calls: 'Observe',
  activity: 'Observe',
  limits: 'Configure',
  team: 'Configure',
  users: 'Configure',
  settings: 'Configure',
  auth: 'Configure',
  webhooks: 'Configure',
  enterprise: 'Configure',
  guardrails: 'Configure',
};

/** The console's pages in menu order; each is labelled with its capitalised id and sits in a group (Home in none). */
export const PAGES: ReadonlyArray<{ id: PageId; label: string; group: (typeof NAV_GROUPS)[number] | null }> = PAGE_IDS.map((id) => ({
  id,
  label: id[0]!.toUpperCase() + id.slice(1),
  group: GROUP_OF[id],
}));

function isPage(id: string): id is PageId {
  return PAGES.some((p) => p.id === id);
}

function current(): PageId {
  const rest = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : '';
  const id = rest.split('/')[0] ?? '';
  if (id === '' || id === 'index.html') return 'home';
  // An address that names no page says so, rather than silently showing another page.
  return isPage(id) && rest.split('/').length === 1 ? id : 'notfound';
}

/**
 * The sign-in round trip returns to `/console/#/<page>[?query]` (the hash is what the console
 * hands the registry as `returnTo`): turn it back into the page's path before anything renders.
 */
export function adoptHashRoute(): void {
  const m = /^#\/([a-z]+)(\?[^#]*)?$/.exec(location.hash);
  if (!m || !location.pathname.startsWith(BASE)) return;
  const page = isPage(m[1]) ? m[1] : 'home';
  history.replaceState(null, '', `${BASE}${page}${m[2] ?? ''}`);
}

/** Where sign-in should come back to, as the hash the registry appends to /console/ (`#/tools`). */
export function returnToHash(): string {
  return `#/${current()}${location.search}`;
}

/** Navigates without a reload (history API; the registry serves index.html for every client route). `search` e.g. `?draft`. */
export function navigate(page: PageId, search = ''): void {
  if (current() === page && location.pathname !== BASE && location.search === search) return;
  history.pushState(null, '', `${BASE}${page}${search}`);
  dispatchEvent(new PopStateEvent('popstate'));
}

/** Props of an in-app link: a real link (opens in a new tab with Ctrl/Cmd) that navigates without a reload. */
export function linkTo(page: PageId, search = '') {
  return {
    href: `${BASE}${page}${search}`,
    onClick: (e: MouseEvent) => {
      if (e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;
      e.preventDefault();
      navigate(page, search);
    },
  };
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
