import { useState } from 'preact/hooks';
import { api, asApiError, session, type ApiError, type Tenant } from '../api';
import { ErrorBox, Field } from '../ui';

/** Sign-in with the tenant API key (this slice); platform OAuth sign-in comes next. */
export function SignIn({ onSignedIn, expired }: { onSignedIn: (t: Tenant) => void; expired: boolean }) {
  const [key, setKey] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const [fieldMsg, setFieldMsg] = useState<string | undefined>(undefined);
  const submit = async (e: Event) => {
    e.preventDefault();
    const trimmed = key.trim();
    setError(undefined);
    if (!trimmed) return setFieldMsg('Enter your tenant API key (it starts with sbk_).');
    setBusy(true);
    setFieldMsg(undefined);
    try {
      const tenant = await api<Tenant>('GET', '/v1/tenant', undefined, trimmed);
      session.set(trimmed);
      onSignedIn(tenant);
    } catch (err) {
      const a = asApiError(err);
      if (a.status === 401) setFieldMsg('This key was not accepted: it is wrong, revoked, or belongs to no tenant.');
      else setError(a);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="narrow sign-in">
      <h1>Sign in to the Switchboard console</h1>
      {expired && <p class="notice">Your key is no longer accepted. Sign in again.</p>}
      <form onSubmit={(e) => void submit(e)} noValidate>
        <Field
          id="apiKey"
          label="Tenant API key"
          type="password"
          value={key}
          onInput={setKey}
          error={fieldMsg}
          autoComplete="off"
          hint="Kept only in this browser tab (sessionStorage) and sent to the registry's admin API."
        />
        {error && <ErrorBox error={error} title="Could not sign in" />}
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <p class="muted small">Coming next: sign in with your platform account (OAuth) instead of an API key.</p>
    </main>
  );
}
