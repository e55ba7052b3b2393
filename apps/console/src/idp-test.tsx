import { useEffect, useState } from 'preact/hooks';
import { api, asApiError, type ApiError } from './api';
import { Allowed } from './role';
import { DataTable, ErrorBox } from './ui';

type TestResult =
  | { id: string; ok: true; issuer: string; claims: Record<string, unknown> }
  | { id: string; ok: false; issuer: string; error: string; errorDescription: string };

const FRAGMENT = '#idp-test=';

/**
 * "Test sign-in" of the saved identity provider: a real authorization-code + PKCE sign-in at
 * the IdP through the workspace's authorization server, which comes back here with the
 * ID-token claims it got (or the IdP's error) sealed in the fragment; the registry opens it.
 */
export function IdpTest({ configured }: { configured: boolean }) {
  const [result, setResult] = useState<TestResult | undefined>(undefined);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (!location.hash.startsWith(FRAGMENT)) return;
    const value = location.hash.slice(FRAGMENT.length);
    // One use: the result leaves the address bar (and history) at once.
    history.replaceState(null, '', `${location.pathname}${location.search}`);
    setBusy(true);
    api<TestResult>('POST', '/v1/tenant/auth/test-sign-in/result', { result: value })
      .then(setResult, (err: unknown) => setError(asApiError(err)))
      .finally(() => setBusy(false));
  }, []);

  const start = async () => {
    setBusy(true);
    setError(undefined);
    setResult(undefined);
    try {
      const { url } = await api<{ url: string }>('POST', '/v1/tenant/auth/test-sign-in');
      location.assign(url);
    } catch (err) {
      setError(asApiError(err));
      setBusy(false);
    }
  };

  return (
    <section class="card" aria-labelledby="idp-test-h" data-testid="idp-test">
      <h2 id="idp-test-h">Test sign-in</h2>
      <p class="muted">
        Signs you in at the saved identity provider for real (authorization code with PKCE, through this workspace's authorization server)
        and shows what it answered. Nothing is kept: no session, no token.
      </p>
      {!configured && (
        <p class="muted small">
          Choose “Your OpenID Connect provider” under Identity provider above and save it first: local sign-in (development) has no provider
          to test.
        </p>
      )}
      {error && <ErrorBox error={error} title="The test sign-in could not run" />}
      {result?.ok && (
        <div data-testid="idp-test-ok">
          <p class="ok-text" role="status">
            Signed in at {result.issuer}. The ID token carried these claims:
          </p>
          <DataTable testId="idp-test-claims" columns={['Claim', 'Value']}>
            {Object.entries(result.claims).map(([k, v]) => (
              <tr key={k}>
                <td class="mono">{k}</td>
                <td class="mono" style={{ wordBreak: 'break-all' }}>
                  {typeof v === 'string' ? v : JSON.stringify(v)}
                </td>
              </tr>
            ))}
          </DataTable>
        </div>
      )}
      {result && !result.ok && (
        <div class="error-box" role="alert" data-testid="idp-test-error">
          <p>
            <strong>The identity provider refused the sign-in: {result.error}</strong>
          </p>
          {result.errorDescription && <p style={{ wordBreak: 'break-word' }}>{result.errorDescription}</p>}
          <p class="small">Issuer: {result.issuer}</p>
        </div>
      )}
      {configured && (
        <div class="row">
          <Allowed needed="admin" what="running a test sign-in">
            <button type="button" onClick={() => void start()} disabled={busy}>
              {busy ? 'Working…' : 'Test sign-in'}
            </button>
          </Allowed>
        </div>
      )}
    </section>
  );
}
