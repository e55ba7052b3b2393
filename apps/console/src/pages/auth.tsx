import { useState } from 'preact/hooks';
import { api, type Server } from '../api';
import { Connectors } from '../connectors';
import { EnterpriseIdps } from '../enterprise-idps';
import { FormFooter, SubmitButton } from '../form-footer';
import { IdpTest } from '../idp-test';
import { linkTo } from '../router';
import { Field, LoadStatus, useFormSubmit, useLoad } from '../ui';
import type { TenantAuthView } from '../tenant-auth-view';

/** API field → DOM id. */
const IDS = {
  protected: 'auth-protected',
  scopes: 'auth-scopes',
  defaultScopes: 'auth-default-scopes',
  idp: 'auth-idp-kind',
  'idp.issuer': 'auth-idp-issuer',
  'idp.clientId': 'auth-idp-client-id',
  'idp.clientSecret': 'auth-idp-client-secret',
};

interface Form {
  protected: boolean;
  scopes: string;
  defaultScopes: string;
  kind: 'local' | 'oidc';
  issuer: string;
  clientId: string;
  clientSecret: string;
}

function toForm(a: TenantAuthView): Form {
  const oidc = a.idp.kind === 'oidc' ? a.idp : undefined;
  return {
    protected: a.protected,
    scopes: a.scopes.join(' '),
    defaultScopes: (a.defaultScopes ?? []).join(' '),
    kind: a.idp.kind,
    issuer: oidc?.issuer ?? '',
    clientId: oidc?.clientId ?? '',
    clientSecret: '',
  };
}

const words = (s: string) => s.split(/\s+/).filter(Boolean);

/**
 * OAuth protection of the workspace's MCP endpoint (`GET/PATCH /v1/tenant/auth`): on/off, the
 * scopes tokens carry, per-tool scopes, and the enterprise IdP users sign in with. A save is
 * live on every gateway and on the authorization server at once.
 */
export function AuthPage() {
  const auth = useLoad(async () => {
    const [view, { servers }] = await Promise.all([
      api<TenantAuthView>('GET', '/v1/tenant/auth'),
      api<{ servers: Server[] }>('GET', '/v1/servers'),
    ]);
    return { view, servers };
  });
  return (
    <section aria-labelledby="auth-h">
      <h1 id="auth-h">Auth</h1>
      <p class="lead">
        Make the MCP endpoint an OAuth-protected enterprise connector: clients (Claude, ChatGPT) sign users in through your identity
        provider and get tokens for this workspace only.
      </p>
      <LoadStatus load={auth} errorTitle="Could not load the auth settings" loadingLabel="Loading the auth settings…" />
      {auth.data && <AuthSettings initial={auth.data.view} servers={auth.data.servers} />}
    </section>
  );
}

/** One copy of the settings for the page: the protection form and the connectors both change it. */
function AuthSettings({ initial, servers }: { initial: TenantAuthView; servers: Server[] }) {
  const [view, setView] = useState(initial);
  return (
    <>
      <AuthForm initial={initial} view={view} setView={setView} />
      <IdpTest configured={view.idp.kind === 'oidc'} />
      <EnterpriseIdps view={view} onChange={setView} />
      <Connectors view={view} servers={servers} onChange={setView} />
    </>
  );
}

function AuthForm({ initial, view, setView }: { initial: TenantAuthView; view: TenantAuthView; setView: (v: TenantAuthView) => void }) {
  const [form, setForm] = useState<Form>(() => toForm(initial));
  const [notice, setNotice] = useState('');
  const submitting = useFormSubmit(IDS);
  const { ref, busy, fields } = submitting;
  const set =
    <K extends keyof Form>(k: K) =>
    (v: Form[K]) => {
      setNotice('');
      setForm((f) => ({ ...f, [k]: v }));
    };

  const submit = async (e: Event) => {
    e.preventDefault();
    const errs: Record<string, string> = {};
    const body: Record<string, unknown> = { protected: form.protected };
    if (words(form.scopes).length === 0) errs[IDS.scopes] = 'List at least one scope, e.g. mcp:tools.';
    body.scopes = words(form.scopes);
    body.defaultScopes = words(form.defaultScopes).length > 0 ? words(form.defaultScopes) : null;
    if (form.kind === 'oidc') {
      if (!form.issuer.trim()) errs[IDS['idp.issuer']] = 'Enter the issuer URL of your identity provider.';
      if (!form.clientId.trim()) errs[IDS['idp.clientId']] = 'Enter the client id registered at your identity provider.';
      body.idp = {
        kind: 'oidc',
        issuer: form.issuer.trim(),
        clientId: form.clientId.trim(),
        ...(form.clientSecret ? { clientSecret: form.clientSecret } : {}),
      };
    } else body.idp = { kind: 'local' };
    await submitting.run(errs, async () => {
      const saved = await api<TenantAuthView>('PATCH', '/v1/tenant/auth', body);
      setView(saved);
      setForm(toForm(saved));
      setNotice(
        saved.pushed === 'ok'
          ? 'Saved; live on every gateway.'
          : saved.pushed === null
            ? 'Saved; applies from the first publish.'
            : 'Saved; gateways pick it up shortly.',
      );
    });
  };

  const secretHint =
    view.idp.kind === 'oidc' && view.idp.clientSecretSet
      ? 'A secret is stored (never shown). Leave empty to keep it.'
      : 'Leave empty for a public client (PKCE only).';
  return (
    <form ref={ref} class="card" onSubmit={(e) => void submit(e)} noValidate aria-labelledby="auth-form-h">
      <h2 id="auth-form-h">Protection</h2>
      <div class="field">
        <label>
          <input
            id={IDS.protected}
            type="checkbox"
            checked={form.protected}
            onChange={(e) => set('protected')((e.currentTarget as HTMLInputElement).checked)}
          />{' '}
          Require OAuth sign-in for the MCP endpoint
        </label>
      </div>
      <div class="grid2">
        <Field
          id={IDS.scopes}
          label="Scopes"
          value={form.scopes}
          onInput={set('scopes')}
          error={fields[IDS.scopes]}
          hint="Separated by spaces (at most 32), e.g. mcp:tools mcp:tools:write."
        />
        <Field
          id={IDS.defaultScopes}
          label="Default scopes (optional)"
          value={form.defaultScopes}
          onInput={set('defaultScopes')}
          error={fields[IDS.defaultScopes]}
          hint="Granted when a client asks for none; each must be one of the scopes."
        />
      </div>
      <p class="small" data-testid="auth-tool-scopes">
        Per-tool scopes:{' '}
        {Object.keys(view.toolScopes).length === 0
          ? 'none yet'
          : Object.entries(view.toolScopes).map(([t, sc]) => <span key={t} class="mono">{`${t} → ${sc.join(' ')}; `}</span>)}{' '}
        <a {...linkTo('tools')}>Set them per tool on the Tools page</a>.
      </p>
      <h2>Identity provider</h2>
      <div class="field">
        <label for={IDS.idp}>Users sign in with</label>
        <select
          id={IDS.idp}
          value={form.kind}
          onChange={(e) => set('kind')((e.currentTarget as HTMLSelectElement).value === 'oidc' ? 'oidc' : 'local')}
        >
          <option value="local">Local sign-in (development)</option>
          <option value="oidc">Your OpenID Connect provider</option>
        </select>
      </div>
      {form.kind === 'oidc' && (
        <div class="grid2">
          <Field
            id={IDS['idp.issuer']}
            label="Issuer URL"
            type="url"
            value={form.issuer}
            onInput={set('issuer')}
            error={fields[IDS['idp.issuer']]}
            hint="Checked before saving: its /.well-known/openid-configuration must name this issuer."
          />
          <Field
            id={IDS['idp.clientId']}
            label="Client id"
            value={form.clientId}
            onInput={set('clientId')}
            error={fields[IDS['idp.clientId']]}
          />
          <Field
            id={IDS['idp.clientSecret']}
            label="Client secret"
            type="password"
            autoComplete="new-password"
            value={form.clientSecret}
            onInput={set('clientSecret')}
            error={fields[IDS['idp.clientSecret']]}
            hint={secretHint}
          />
        </div>
      )}
      <FormFooter error={submitting.formError} errorTitle="Could not save the auth settings" notice={notice} noticeTestId="auth-notice">
        <SubmitButton busy={busy} label="Save auth settings" needed="admin" what="changing the auth settings" />
      </FormFooter>
    </form>
  );
}
