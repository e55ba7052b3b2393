import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { Allowed, useCan } from '../role';
import { Badge, CopyButton, DataTable, ErrorBox, Field, LoadStatus, useActions, useFormSubmit, useLoad, When } from '../ui';

type Role = 'viewer' | 'publisher' | 'admin' | 'owner';
const ROLE_NAMES: readonly Role[] = ['viewer', 'publisher', 'admin', 'owner'];

interface SsoSettings {
  issuer: string;
  clientId: string;
  hasClientSecret: boolean;
  groupClaim: string;
  usernameClaim: string;
  roleMap: Record<string, Role>;
  jit: boolean;
  enabled: boolean;
}

interface ScimToken {
  id: string;
  name: string;
  createdAt: string;
  createdBy: string;
  lastUsedAt: string | null;
  revoked: boolean;
}

/** API field → DOM id of the SSO form. */
const SSO_IDS = {
  'body.issuer': 'sso-issuer',
  'body.clientId': 'sso-client-id',
  'body.clientSecret': 'sso-client-secret',
  'body.roleMap': 'sso-role-map',
  'body.groupClaim': 'sso-group-claim',
  'body.usernameClaim': 'sso-username-claim',
};

/** "Group name = role" lines ↔ the role map. */
function roleMapText(m: Record<string, Role>): string {
  return Object.entries(m)
    .map(([g, r]) => `${g} = ${r}`)
    .join('\n');
}

function parseRoleMap(text: string): { map: Record<string, Role> } | { error: string } {
  const map: Record<string, Role> = {};
  for (const [i, line] of text.split('\n').entries()) {
    if (!line.trim()) continue;
    const eq = line.lastIndexOf('=');
    const group = line.slice(0, eq).trim();
    const role = line.slice(eq + 1).trim() as Role;
    if (eq < 0 || !group || !ROLE_NAMES.includes(role))
      return { error: `Line ${i + 1}: write "<group name> = viewer|publisher|admin|owner".` };
    map[group] = role;
  }
  return { map };
}

/** Enterprise identity: console sign-in through the workspace's own IdP, and SCIM provisioning tokens. */
export function EnterprisePage() {
  return (
    <section aria-labelledby="enterprise-h">
      <h1 id="enterprise-h">Enterprise</h1>
      <p class="lead">
        Let your administrators sign in with your company identity provider (OIDC), and provision people and groups from it with SCIM 2.0.
      </p>
      <SsoForm />
      <ScimTokens />
    </section>
  );
}

function SsoForm() {
  const load = useLoad(() => api<{ sso: SsoSettings | null; redirectUri: string }>('GET', '/v1/console-sso'));
  const [form, setForm] = useState({
    issuer: '',
    clientId: '',
    clientSecret: '',
    groupClaim: 'groups',
    usernameClaim: 'email',
    roleMap: '',
    jit: false,
    enabled: true,
  });
  const [saved, setSaved] = useState('');
  const submitting = useFormSubmit(SSO_IDS);
  const { ref, busy, fields } = submitting;
  const canEdit = useCan('owner');
  useEffect(() => {
    const s = load.data?.sso;
    if (s)
      setForm({
        issuer: s.issuer,
        clientId: s.clientId,
        clientSecret: '',
        groupClaim: s.groupClaim,
        usernameClaim: s.usernameClaim,
        roleMap: roleMapText(s.roleMap),
        jit: s.jit,
        enabled: s.enabled,
      });
  }, [load.data]);
  const set = (k: 'issuer' | 'clientId' | 'clientSecret' | 'groupClaim' | 'usernameClaim' | 'roleMap') => (v: string) =>
    setForm((f) => ({ ...f, [k]: v }));

  const submit = async (e: Event) => {
    e.preventDefault();
    setSaved('');
    const errs: Record<string, string> = {};
    if (!form.issuer.trim()) errs['sso-issuer'] = 'Enter the issuer URL of your identity provider.';
    if (!form.clientId.trim()) errs['sso-client-id'] = 'Enter the client id registered at your identity provider.';
    const parsed = parseRoleMap(form.roleMap);
    if ('error' in parsed) errs['sso-role-map'] = parsed.error;
    await submitting.run(errs, async () => {
      if ('error' in parsed) return;
      const body: Record<string, unknown> = {
        issuer: form.issuer.trim(),
        clientId: form.clientId.trim(),
        groupClaim: form.groupClaim.trim(),
        usernameClaim: form.usernameClaim.trim(),
        roleMap: parsed.map,
        jit: form.jit,
        enabled: form.enabled,
      };
      if (form.clientSecret) body.clientSecret = form.clientSecret;
      await api('PUT', '/v1/console-sso', body);
      setSaved('Single sign-on is saved.');
      await load.reload();
    });
  };

  return (
    <form ref={ref} class="card" onSubmit={(e) => void submit(e)} noValidate aria-labelledby="sso-h">
      <h2 id="sso-h">Single sign-on (OIDC)</h2>
      <LoadStatus load={load} errorTitle="Could not load the single sign-on setting" loadingLabel="Loading single sign-on…" />
      {load.data && (
        <p class="small">
          Register this redirect URI at your identity provider:{' '}
          <span class="mono" data-testid="sso-redirect-uri">
            {load.data.redirectUri}
          </span>{' '}
          <CopyButton text={load.data.redirectUri} label="Copy redirect URI" />
        </p>
      )}
      <div class="grid3 even">
        <Field id="sso-issuer" label="Issuer URL" type="url" value={form.issuer} onInput={set('issuer')} error={fields['sso-issuer']} />
        <Field id="sso-client-id" label="Client ID" value={form.clientId} onInput={set('clientId')} error={fields['sso-client-id']} />
        <Field
          id="sso-client-secret"
          label="Client secret"
          type="password"
          value={form.clientSecret}
          onInput={set('clientSecret')}
          error={fields['sso-client-secret']}
          hint={
            load.data?.sso?.hasClientSecret
              ? 'A secret is stored (encrypted). Leave empty to keep it.'
              : 'Leave empty for a public client (PKCE only).'
          }
        />
        <Field
          id="sso-group-claim"
          label="Group claim"
          value={form.groupClaim}
          onInput={set('groupClaim')}
          error={fields['sso-group-claim']}
        />
        <Field
          id="sso-username-claim"
          label="User name claim"
          value={form.usernameClaim}
          onInput={set('usernameClaim')}
          error={fields['sso-username-claim']}
        />
      </div>
      <Field
        id="sso-role-map"
        label="Group → role"
        multiline
        mono
        value={form.roleMap}
        onInput={set('roleMap')}
        error={fields['sso-role-map']}
        hint="One group per line: Switchboard Admins = admin. People in no listed group cannot sign in through SSO."
      />
      <p>
        <label>
          <input
            type="checkbox"
            checked={form.jit}
            onChange={(e) => setForm((f) => ({ ...f, jit: (e.currentTarget as HTMLInputElement).checked }))}
          />{' '}
          Create administrators on first sign-in (just-in-time)
        </label>
      </p>
      <p>
        <label>
          <input
            type="checkbox"
            checked={form.enabled}
            onChange={(e) => setForm((f) => ({ ...f, enabled: (e.currentTarget as HTMLInputElement).checked }))}
          />{' '}
          Single sign-on is on
        </label>
      </p>
      {submitting.formError && <ErrorBox error={submitting.formError} title="Could not save single sign-on" />}
      {saved && (
        <p class="ok-text" role="status">
          {saved}
        </p>
      )}
      {canEdit && (
        <div class="row">
          <button type="submit" class="primary" disabled={busy}>
            {busy ? 'Saving…' : 'Save single sign-on'}
          </button>
        </div>
      )}
    </form>
  );
}

function ScimTokens() {
  const load = useLoad(() => api<{ baseUrl: string; tokens: ScimToken[] }>('GET', '/v1/scim/tokens'));
  const actions = useActions(load.reload);
  const [name, setName] = useState('');
  const [created, setCreated] = useState<string | undefined>(undefined);
  const submitting = useFormSubmit({ 'body.name': 'scim-token-name' });

  const create = async (e: Event) => {
    e.preventDefault();
    setCreated(undefined);
    const errs: Record<string, string> = {};
    if (!name.trim()) errs['scim-token-name'] = 'Name the token after the app that uses it (e.g. Okta).';
    await submitting.run(errs, async () => {
      const r = await api<{ token: string }>('POST', '/v1/scim/tokens', { name: name.trim() });
      setCreated(r.token);
      setName('');
      await load.reload();
    });
  };
  const revoke = async (t: ScimToken) => {
    if (!confirm(`Revoke SCIM token "${t.name}"? Provisioning with it stops at once.`)) return;
    await actions.run(async () => {
      await api('DELETE', `/v1/scim/tokens/${encodeURIComponent(t.id)}`);
      return `Token ${t.name} is revoked.`;
    });
  };

  return (
    <div class="card" aria-labelledby="scim-h">
      <h2 id="scim-h">SCIM provisioning</h2>
      {load.data && (
        <p class="small">
          SCIM base URL for your identity provider:{' '}
          <span class="mono" data-testid="scim-base-url">
            {load.data.baseUrl}
          </span>{' '}
          <CopyButton text={load.data.baseUrl} label="Copy SCIM base URL" />
        </p>
      )}
      <Allowed needed="owner" what="creating SCIM tokens">
        <form ref={submitting.ref} onSubmit={(e) => void create(e)} noValidate>
          <Field id="scim-token-name" label="Token name" value={name} onInput={setName} error={submitting.fields['scim-token-name']} />
          {submitting.formError && <ErrorBox error={submitting.formError} title="Could not create the token" />}
          <button type="submit" class="primary" disabled={submitting.busy}>
            Create SCIM token
          </button>
        </form>
      </Allowed>
      {created && (
        <div class="notice" role="status" data-testid="scim-token-created">
          <p>Copy this token into your identity provider now: it is shown only once.</p>
          <input class="mono" readOnly value={created} aria-label="New SCIM token" data-testid="scim-token-value" />
          <CopyButton text={created} label="Copy SCIM token" />
        </div>
      )}
      {actions.error && <ErrorBox error={actions.error} title="Could not revoke the token" />}
      {actions.notice && (
        <p class="ok-text" role="status">
          {actions.notice}
        </p>
      )}
      <LoadStatus
        load={load}
        errorTitle="Could not load SCIM tokens"
        loadingLabel="Loading SCIM tokens…"
        empty="No SCIM tokens yet."
        isEmpty={(d) => d.tokens.length === 0}
      />
      {load.data && load.data.tokens.length > 0 && (
        <DataTable testId="scim-tokens-table" columns={['Name', 'Created', 'Last used', 'State', <span class="sr-only">Actions</span>]}>
          {load.data.tokens.map((t) => (
            <tr key={t.id}>
              <td>{t.name}</td>
              <td>
                <When at={t.createdAt} />
              </td>
              <td>
                <When at={t.lastUsedAt} />
              </td>
              <td>{t.revoked ? <Badge tone="muted">Revoked</Badge> : <Badge tone="ok">Live</Badge>}</td>
              <td class="actions">
                {!t.revoked && (
                  <button type="button" class="danger" onClick={() => void revoke(t)} aria-label={`Revoke SCIM token ${t.name}`}>
                    Revoke
                  </button>
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </div>
  );
}
