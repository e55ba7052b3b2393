import { useEffect, useRef, useState } from 'preact/hooks';
import { Mark } from './brand';
import {
  api,
  asApiError,
  isRecord,
  loadAuthConfig,
  logout,
  onUnauthorized,
  session,
  type ApiError,
  type AuthConfig,
  type Change,
  type SessionInfo,
  type Tenant,
} from './api';
import { ErrorBoundary } from './error-boundary';
import type { Identity } from './identity';
import { onChanged } from './events';
import { ActivityPage } from './pages/activity';
import { HomePage } from './pages/home';
import { NotFoundPage } from './pages/not-found';
import { AuthPage } from './pages/auth';
import { EnterprisePage } from './pages/enterprise';
import { GuardrailsPage } from './pages/guardrails';
import { CallsPage } from './pages/calls';
import { ConnectPage } from './pages/connect';
import { LimitsPage } from './pages/limits';
import { PreviewPage } from './pages/preview';
import { ReadinessPage } from './pages/readiness';
import { ReviewPage } from './pages/review';
import { ServersPage } from './pages/servers';
import { SettingsPage } from './pages/settings';
import { SignIn } from './pages/sign-in';
import { TeamPage } from './pages/team';
import { UsersPage } from './pages/users';
import { ToolsPage } from './pages/tools';
import { UsagePage } from './pages/usage';
import { WebhooksPage } from './pages/webhooks';
import { isRole, RoleContext } from './role';
import { linkTo, NAV_GROUPS, PAGES, usePage, type PageId } from './router';
import { ErrorBox, Spinner } from './ui';

function isTenant(v: unknown): v is Tenant {
  return isRecord(v) && typeof v.id === 'string' && typeof v.name === 'string' && typeof v.mcpUrl === 'string';
}

/** `?signin_error=…` the registry appends after a failed OAuth round trip; read once and removed from the address bar. */
function takeSigninError(): string | undefined {
  const params = new URLSearchParams(location.search);
  const err = params.get('signin_error');
  if (err === null) return undefined;
  params.delete('signin_error');
  const rest = params.toString();
  history.replaceState(null, '', `${location.pathname}${rest ? `?${rest}` : ''}${location.hash}`);
  return err.slice(0, 64);
}

/**
 * The cookie session first (`GET /v1/session`, platform OAuth), then the tab's stored API key.
 * Undefined = not signed in. A registry without `/v1/session` (404) falls through to the key.
 */
async function restoreIdentity(): Promise<Identity | undefined> {
  try {
    const info = await api<SessionInfo>('GET', '/v1/session', undefined, { cookieOnly: true, quiet401: true });
    session.useCookie();
    const tenant = isTenant(info.tenant) ? info.tenant : await api<Tenant>('GET', '/v1/tenant');
    return {
      tenant,
      user: isRecord(info.user) && typeof info.user.username === 'string' ? info.user : null,
      via: info.via ?? 'session',
      role: isRole(info.role) ? info.role : 'owner',
    };
  } catch (err) {
    const e = asApiError(err);
    if (e.status === 0 || e.status >= 500) throw e;
  }
  const key = session.key();
  if (!key) return undefined;
  try {
    const tenant = await api<Tenant>('GET', '/v1/tenant', undefined, { key, quiet401: true });
    session.useKey(key);
    const info = await api<SessionInfo>('GET', '/v1/session').catch(() => undefined);
    return { tenant, user: null, via: 'api_key', role: isRole(info?.role) ? info.role : 'owner' };
  } catch (err) {
    const e = asApiError(err);
    if (e.status === 401) {
      session.clear();
      return undefined;
    }
    throw e;
  }
}

/** The console shell: sign-in gate, navigation, and one page at a time inside an error boundary. */
export function App() {
  const [identity, setIdentity] = useState<Identity | undefined>(undefined);
  const [auth, setAuth] = useState<AuthConfig | undefined>(undefined);
  const [checking, setChecking] = useState(true);
  const [bootError, setBootError] = useState<ApiError | undefined>(undefined);
  const [expired, setExpired] = useState(false);
  const [signinError] = useState(takeSigninError);

  const restore = async () => {
    setChecking(true);
    setBootError(undefined);
    try {
      const [who, cfg] = await Promise.all([restoreIdentity(), loadAuthConfig()]);
      setAuth(cfg);
      setIdentity(who);
    } catch (err) {
      setBootError(asApiError(err));
    } finally {
      setChecking(false);
    }
  };

  useEffect(() => {
    void restore();
    return onUnauthorized(() => {
      session.clear();
      setIdentity(undefined);
      setExpired(true);
      // The sign-in form needs to know whether OAuth is offered.
      void loadAuthConfig().then(setAuth);
    });
  }, []);

  if (checking) return <Spinner label="Checking your session…" />;
  if (bootError)
    return (
      <main class="narrow" id="main">
        <ErrorBox error={bootError} title="Could not reach the registry" retry={() => void restore()} />
      </main>
    );
  if (!identity) {
    if (!auth) return <Spinner label="Loading sign-in…" />;
    return (
      <SignIn
        auth={auth}
        expired={expired}
        signinError={expired ? undefined : signinError}
        onKey={(key, tenant) => {
          session.useKey(key);
          setExpired(false);
          // The key's role decides which controls show; a registry without roles answers none (all shown).
          void api<SessionInfo>('GET', '/v1/session')
            .catch(() => undefined)
            .then((info) => setIdentity({ tenant, user: null, via: 'api_key', role: isRole(info?.role) ? info.role : 'owner' }));
        }}
      />
    );
  }
  return (
    <Shell
      identity={identity}
      onTenant={(t) => setIdentity((i) => i && { ...i, tenant: { ...i.tenant, name: t.name, description: t.description } })}
      onSignOut={async () => {
        if (session.mode() === 'cookie') await logout();
        session.clear();
        setExpired(false);
        setIdentity(undefined);
        setAuth(await loadAuthConfig());
      }}
    />
  );
}

/** How many changes are held for review (undefined while unknown or unavailable: no badge). */
function useReviewCount(page: PageId): number | undefined {
  const [count, setCount] = useState<number | undefined>(undefined);
  const seq = useRef(0);
  const load = () => {
    const mine = ++seq.current;
    api<{ changes: Change[] }>('GET', '/v1/changes')
      .then((r) => mine === seq.current && setCount(Array.isArray(r.changes) ? r.changes.length : undefined))
      .catch(() => mine === seq.current && setCount(undefined));
  };
  useEffect(load, [page]);
  useEffect(() => onChanged(load), []);
  return count;
}

function Shell({ identity, onSignOut, onTenant }: { identity: Identity; onSignOut: () => Promise<void>; onTenant: (t: Tenant) => void }) {
  const page = usePage();
  const mainRef = useRef<HTMLElement>(null);
  const first = useRef(true);
  const [signingOut, setSigningOut] = useState(false);
  const reviewCount = useReviewCount(page);
  const { tenant, user } = identity;
  const label = PAGES.find((p) => p.id === page)?.label ?? 'Page not found';
  useEffect(() => {
    document.title = `${label} · ${tenant.name} · Switchboard`;
    // Keyboard and screen-reader users land on the new page's content (not on first load: the page starts at the top).
    if (first.current) first.current = false;
    else mainRef.current?.focus();
  }, [page]);
  return (
    <div class="shell">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">
          <Mark /> Switchboard
        </span>
        <span class="tenant" data-testid="tenant-name">
          {tenant.name} <span class="muted">({tenant.id})</span>
        </span>
        <span class="who muted" data-testid="signed-in-as">
          {user ? <>Signed in as {user.name || user.username}</> : identity.via === 'api_key' ? 'Signed in with an API key' : 'Signed in'}
        </span>
        <button
          type="button"
          class="link"
          disabled={signingOut}
          onClick={() => {
            setSigningOut(true);
            void onSignOut().finally(() => setSigningOut(false));
          }}
        >
          {signingOut ? 'Signing out…' : 'Sign out'}
        </button>
      </header>
      <nav aria-label="Console pages">
        <NavLink id="home" label="Home" page={page} />
        {NAV_GROUPS.map((group) => (
          <div key={group} class="nav-group">
            <p class="nav-group-h" id={`nav-${group}`}>
              {group}
            </p>
            <ul aria-labelledby={`nav-${group}`}>
              {PAGES.filter((p) => p.group === group).map((p) => (
                <li key={p.id}>
                  <NavLink id={p.id} label={p.label} page={page} badge={p.id === 'review' ? reviewCount : undefined} />
                </li>
              ))}
            </ul>
          </div>
        ))}
      </nav>
      <main id="main" ref={mainRef} tabIndex={-1}>
        <ErrorBoundary resetKey={page}>
          <RoleContext.Provider value={identity.role}>
            <Page page={page} identity={identity} onTenant={onTenant} />
          </RoleContext.Provider>
        </ErrorBoundary>
      </main>
    </div>
  );
}

/** One menu entry; `badge` is the Review page's count of held changes. */
function NavLink({ id, label, page, badge }: { id: PageId; label: string; page: PageId; badge?: number | undefined }) {
  return (
    <a {...linkTo(id)} aria-current={id === page ? 'page' : undefined}>
      {label}
      {badge !== undefined && badge > 0 && (
        <span class="count" data-testid="review-count">
          {badge}
          <span class="sr-only"> awaiting review</span>
        </span>
      )}
    </a>
  );
}

function Page({ page, identity, onTenant }: { page: PageId; identity: Identity; onTenant: (t: Tenant) => void }) {
  switch (page) {
    case 'home':
      return <HomePage tenant={identity.tenant} />;
    case 'notfound':
      return <NotFoundPage />;
    case 'servers':
      return <ServersPage />;
    case 'tools':
      return <ToolsPage />;
    case 'review':
      return <ReviewPage />;
    case 'preview':
      return <PreviewPage />;
    case 'connect':
      return <ConnectPage tenant={identity.tenant} />;
    case 'readiness':
      return <ReadinessPage tenant={identity.tenant} />;
    case 'usage':
      return <UsagePage />;
    case 'calls':
      return <CallsPage />;
    case 'limits':
      return <LimitsPage />;
    case 'webhooks':
      return <WebhooksPage />;
    case 'activity':
      return <ActivityPage />;
    case 'team':
      return <TeamPage identity={identity} />;
    case 'users':
      return <UsersPage />;
    case 'settings':
      return <SettingsPage onSaved={onTenant} />;
    case 'auth':
      return <AuthPage />;
    case 'enterprise':
      return <EnterprisePage />;
    case 'guardrails':
      return <GuardrailsPage />;
  }
}
