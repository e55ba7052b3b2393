import { useRef, useState } from 'preact/hooks';
import { Mark } from '../brand';
import { api, ApiError, asApiError, type AuthConfig, type Tenant } from '../api';
import { returnToHash } from '../router';
import { ErrorBox, Field, useFocusOnError, useFormSubmit } from '../ui';

const WORKSPACE_STORAGE = 'switchboard.workspace';
/** Tenant ids are DNS labels (the registry's TENANT_ID). */
const WORKSPACE_ID = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** What a header-safe key can hold (`sbk_` + base64url); anything else is refused before it is sent. */
const API_KEY_CHARS = /^[\x21-\x7e]{1,512}$/;

/** API field → DOM id of the key form (its 401 is put on `apiKey`). */
const KEY_IDS = { apiKey: 'apiKey' };

/** What each `?signin_error=` the registry sends back after a failed OAuth round trip means to the user. */
const SIGNIN_ERRORS: Record<string, { title: string; text: string }> = {
  access_denied: {
    title: 'Sign-in was cancelled or refused',
    text: 'You cancelled the sign-in, or your account is not an administrator of that workspace. Check the workspace id, or ask an administrator of it to add you on its Team page.',
  },
  state_mismatch: {
    title: 'Sign-in could not be verified',
    text: 'The sign-in answer did not match the request this browser started (it may have taken too long, or been started in another tab). Start again from here.',
  },
  token_rejected: {
    title: 'Sign-in was not accepted',
    text: 'The platform did not accept the sign-in it was handed. Try again; if it keeps happening, contact your platform operator.',
  },
  sso_not_configured: {
    title: 'Single sign-on is not set up for that workspace',
    text: 'That workspace has no company sign-in (SSO) configured. Check the workspace id, or sign in another way and set it up on the Enterprise page.',
  },
  unavailable: {
    title: 'Sign-in is unavailable right now',
    text: 'The platform sign-in service did not answer. Try again in a moment, or use an API key instead.',
  },
};

function storedWorkspace(): string {
  try {
    return localStorage.getItem(WORKSPACE_STORAGE) ?? '';
  } catch {
    return '';
  }
}

/**
 * Sign-in: with the platform account (OAuth, the registry keeps the session in an HttpOnly cookie)
 * when the registry offers it, else — or on request — with a tenant API key.
 */
export function SignIn(props: {
  auth: AuthConfig;
  expired: boolean;
  signinError: string | undefined;
  onKey: (key: string, tenant: Tenant) => void;
}) {
  const [mode, setMode] = useState<'platform' | 'key' | 'sso'>(props.auth.oauth ? 'platform' : 'key');
  const useKey = mode === 'key';
  const failure = props.signinError
    ? (SIGNIN_ERRORS[props.signinError] ?? {
        title: 'Sign-in failed',
        text: `The sign-in did not complete (${props.signinError}). Try again.`,
      })
    : undefined;
  return (
    <main class="narrow sign-in" id="main">
      <p class="brand-line">
        <Mark size={28} /> Switchboard
      </p>
      <h1>Sign in to the Switchboard console</h1>
      {props.expired && <p class="notice">Your session has ended. Sign in again to continue.</p>}
      {failure && (
        <div class="error-box" role="alert" data-testid="signin-error">
          <strong>{failure.title}</strong>
          <p>{failure.text}</p>
        </div>
      )}
      {mode === 'sso' ? (
        <OAuthForm loginUrl="/console/sso/login" sso />
      ) : useKey ? (
        <KeyForm onKey={props.onKey} />
      ) : (
        <OAuthForm loginUrl={props.auth.loginUrl} />
      )}
      {props.auth.oauth && mode !== 'platform' && (
        <p>
          <button type="button" class="link" onClick={() => setMode('platform')}>
            Use your platform account instead
          </button>
        </p>
      )}
      {mode !== 'key' && (
        <p>
          <button type="button" class="link" onClick={() => setMode('key')}>
            Use an API key instead
          </button>
        </p>
      )}
      {mode !== 'sso' && (
        <p>
          <button type="button" class="link" onClick={() => setMode('sso')}>
            Sign in with your company account (SSO)
          </button>
        </p>
      )}
    </main>
  );
}

/**
 * The platform OAuth sign-in, or (`sso`) the workspace's own identity provider: the browser goes to
 * the registry's login route, which returns here with a session cookie.
 */
function OAuthForm({ loginUrl, sso = false }: { loginUrl: string; sso?: boolean }) {
  const [workspace, setWorkspace] = useState(storedWorkspace);
  const [fieldMsg, setFieldMsg] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<object | undefined>(undefined);
  const ref = useRef<HTMLFormElement>(null);
  useFocusOnError(ref, failure);
  const submit = (e: Event) => {
    e.preventDefault();
    const id = workspace.trim().toLowerCase();
    if (!WORKSPACE_ID.test(id)) {
      setFieldMsg(
        id ? 'That is not a workspace id: use lowercase letters, digits and -, as in acme.' : 'Enter your workspace id (e.g. acme).',
      );
      setFailure({});
      return;
    }
    setFieldMsg(undefined);
    setBusy(true);
    try {
      localStorage.setItem(WORKSPACE_STORAGE, id);
    } catch {
      // Remembering the workspace is a convenience only.
    }
    const q = new URLSearchParams({ workspace: id, returnTo: returnToHash() });
    location.assign(`${loginUrl}?${q.toString()}`);
  };
  return (
    <form ref={ref} onSubmit={submit} noValidate>
      <Field
        id="workspace"
        label="Workspace"
        value={workspace}
        onInput={setWorkspace}
        error={fieldMsg}
        autoComplete="organization"
        hint={`Your workspace (tenant) id, e.g. acme. Next, ${sso ? "your company's identity provider" : 'the platform sign-in page'} asks for your user name and password (not the workspace again); the console never sees a token.`}
      />
      <button type="submit" class="primary" disabled={busy}>
        {busy ? 'Opening sign-in…' : sso ? 'Sign in with SSO' : 'Sign in'}
      </button>
    </form>
  );
}

/** Sign-in with a tenant API key (kept in sessionStorage for this tab). */
function KeyForm({ onKey }: { onKey: (key: string, tenant: Tenant) => void }) {
  const [key, setKey] = useState('');
  const submitting = useFormSubmit(KEY_IDS);
  const { ref, busy, fields, formError: error } = submitting;
  const submit = async (e: Event) => {
    e.preventDefault();
    const trimmed = key.trim();
    const errs: Record<string, string> = {};
    if (!trimmed) errs.apiKey = 'Enter your tenant API key (it starts with sbk_).';
    // A key goes in the Authorization header, which cannot carry other characters: the browser would
    // refuse to send it and the failure would read like a network error.
    else if (!API_KEY_CHARS.test(trimmed))
      errs.apiKey = 'That is not an API key: keys are letters, digits, - and _ only, and start with sbk_.';
    await submitting.run(errs, async () => {
      let tenant: Tenant;
      try {
        tenant = await api<Tenant>('GET', '/v1/tenant', undefined, { key: trimmed });
      } catch (err) {
        const a = asApiError(err);
        // A 401 is about the key itself: it belongs beside the field, not in the error box.
        if (a.status === 401)
          throw new ApiError(401, a.code, 'This key was not accepted: it is wrong, revoked, or belongs to no tenant.', 'apiKey');
        throw a;
      }
      onKey(trimmed, tenant);
    });
  };
  return (
    <form ref={ref} onSubmit={(e) => void submit(e)} noValidate>
      <Field
        id="apiKey"
        label="Tenant API key"
        type="password"
        value={key}
        onInput={setKey}
        error={fields.apiKey}
        autoComplete="off"
        hint="Kept only in this browser tab (sessionStorage) and sent to the registry's admin API."
      />
      {error && <ErrorBox error={error} title="Could not sign in" />}
      <button type="submit" class="primary" disabled={busy}>
        {busy ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  );
}
