import { useEffect, useRef, useState } from 'preact/hooks';
import { api, asApiError, onUnauthorized, session, type ApiError, type Tenant } from './api';
import { ErrorBoundary } from './error-boundary';
import { ActivityPage } from './pages/activity';
import { ConnectPage } from './pages/connect';
import { PreviewPage } from './pages/preview';
import { ReadinessPage } from './pages/readiness';
import { ServersPage } from './pages/servers';
import { SignIn } from './pages/sign-in';
import { ToolsPage } from './pages/tools';
import { navigate, PAGES, usePage, type PageId } from './router';
import { ErrorBox, Spinner } from './ui';

/** The console shell: sign-in gate, navigation, and one page at a time inside an error boundary. */
export function App() {
  const [tenant, setTenant] = useState<Tenant | undefined>(undefined);
  const [checking, setChecking] = useState(session.key() !== null);
  const [bootError, setBootError] = useState<ApiError | undefined>(undefined);
  const [expired, setExpired] = useState(false);

  const restore = async () => {
    if (!session.key()) return setChecking(false);
    setChecking(true);
    setBootError(undefined);
    try {
      setTenant(await api<Tenant>('GET', '/v1/tenant'));
    } catch (err) {
      const e = asApiError(err);
      if (e.status === 401) session.clear();
      else setBootError(e);
    } finally {
      setChecking(false);
    }
  };

  useEffect(() => {
    void restore();
    return onUnauthorized(() => {
      session.clear();
      setTenant(undefined);
      setExpired(true);
    });
  }, []);

  if (checking) return <Spinner label="Checking your session…" />;
  if (bootError) return <main class="narrow"><ErrorBox error={bootError} title="Could not load your tenant" retry={() => void restore()} /></main>;
  if (!tenant) {
    return (
      <SignIn
        expired={expired}
        onSignedIn={(t) => {
          setExpired(false);
          setTenant(t);
        }}
      />
    );
  }
  return (
    <Shell
      tenant={tenant}
      onSignOut={() => {
        session.clear();
        setTenant(undefined);
      }}
    />
  );
}

function Shell({ tenant, onSignOut }: { tenant: Tenant; onSignOut: () => void }) {
  const page = usePage();
  const mainRef = useRef<HTMLElement>(null);
  const label = PAGES.find((p) => p.id === page)?.label ?? '';
  useEffect(() => {
    document.title = `${label} · ${tenant.name} · Switchboard`;
    // Keyboard and screen-reader users land on the new page's content.
    mainRef.current?.focus();
  }, [page]);
  return (
    <div class="shell">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Switchboard</span>
        <span class="tenant" data-testid="tenant-name">
          {tenant.name} <span class="muted">({tenant.id})</span>
        </span>
        <button type="button" class="link" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <nav aria-label="Console pages">
        <ul>
          {PAGES.map((p) => (
            <li key={p.id}>
              <a
                href={`/console/${p.id}`}
                aria-current={p.id === page ? 'page' : undefined}
                onClick={(e) => {
                  if (e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;
                  e.preventDefault();
                  navigate(p.id);
                }}
              >
                {p.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" ref={mainRef} tabIndex={-1}>
        <ErrorBoundary resetKey={page}>
          <Page page={page} tenant={tenant} />
        </ErrorBoundary>
      </main>
    </div>
  );
}

function Page({ page, tenant }: { page: PageId; tenant: Tenant }) {
  switch (page) {
    case 'servers':
      return <ServersPage />;
    case 'tools':
      return <ToolsPage />;
    case 'preview':
      return <PreviewPage />;
    case 'connect':
      return <ConnectPage tenant={tenant} />;
    case 'readiness':
      return <ReadinessPage tenant={tenant} />;
    case 'activity':
      return <ActivityPage />;
  }
}
