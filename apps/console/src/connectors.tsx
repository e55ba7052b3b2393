import { useState } from 'preact/hooks';
import { api, type Server } from './api';
import { FormFooter, SubmitButton } from './form-footer';
import type { TenantAuthView } from './tenant-auth-view';
import {
  ConnectorGrantFields,
  GRANT_FIELD_IDS,
  GRANT_IDS,
  grantBody,
  grantFormOf,
  grantLabel,
  type GrantForm,
} from './connector-grant-fields';
import { Allowed, useCan } from './role';
import { DataTable, Empty, Field, SelectField, useFormSubmit } from './ui';

const IDS = {
  server: 'connector-server',
  issuer: 'connector-issuer',
  clientId: 'connector-client-id',
  clientSecret: 'connector-client-secret',
  scopes: 'connector-scopes',
};
/** API field → DOM id (PUT /v1/servers/:id/connector). */
const FIELD_IDS = {
  issuer: IDS.issuer,
  clientId: IDS.clientId,
  clientSecret: IDS.clientSecret,
  scopes: IDS.scopes,
  id: IDS.server,
  ...GRANT_FIELD_IDS,
};

interface ConnectorForm {
  issuer: string;
  clientId: string;
  clientSecret: string;
  scopes: string;
  grant: GrantForm;
}

function formOf(view: TenantAuthView, serverId: string): ConnectorForm {
  const c = view.connectors[serverId];
  return {
    issuer: c?.issuer ?? '',
    clientId: c?.clientId ?? '',
    clientSecret: '',
    scopes: (c?.scopes ?? []).join(' '),
    grant: grantFormOf(c),
  };
}

/**
 * Connectors per upstream server (`PUT/DELETE /v1/servers/:id/connector`): the upstream's own
 * OAuth client, with which each end user links their account so calls carry the user's token.
 * The client secret is write-only: it is never shown again (`clientSecretSet`).
 */
export function Connectors({
  view,
  servers,
  onChange,
}: {
  view: TenantAuthView;
  servers: Server[];
  onChange: (v: TenantAuthView) => void;
}) {
  const canEdit = useCan('admin');
  const first = servers.find((s) => s.auth.mode === 'oauth_user') ?? servers[0];
  const [serverId, setServerId] = useState(first?.id ?? '');
  const [form, setForm] = useState<ConnectorForm>(() => formOf(view, first?.id ?? ''));
  const [notice, setNotice] = useState('');
  const submitting = useFormSubmit(FIELD_IDS);
  const configured = Object.entries(view.connectors);
  const current = view.connectors[serverId];
  const set = (k: Exclude<keyof ConnectorForm, 'grant'>) => (v: string) => {
    setNotice('');
    setForm((f) => ({ ...f, [k]: v }));
  };
  const setGrant = (k: keyof GrantForm) => (v: string) => {
    setNotice('');
    setForm((f) => ({ ...f, grant: { ...f.grant, [k]: v } }));
  };
  const pick = (id: string) => {
    setServerId(id);
    setForm(formOf(view, id));
    setNotice('');
    submitting.clear();
  };
  const save = async (e: Event) => {
    e.preventDefault();
    setNotice('');
    const problems: Record<string, string> = {};
    if (!serverId) problems[IDS.server] = 'Choose a server.';
    if (!form.issuer.trim()) problems[IDS.issuer] = "Enter the issuer URL of the upstream's authorization server.";
    if (!form.clientId.trim()) problems[IDS.clientId] = 'Enter the client id registered at the upstream.';
    if (form.grant.kind === 'cross_app' && !form.grant.idpIssuer.trim())
      problems[GRANT_IDS.idpIssuer] = "Enter the enterprise IdP's issuer URL.";
    if (form.grant.kind === 'cross_app' && !form.grant.idpClientId.trim())
      problems[GRANT_IDS.idpClientId] = 'Enter the client id registered at the enterprise IdP.';
    await submitting.run(problems, async () => {
      const body = {
        issuer: form.issuer.trim(),
        clientId: form.clientId.trim(),
        scopes: form.scopes.split(/\s+/).filter(Boolean),
        ...(form.clientSecret ? { clientSecret: form.clientSecret } : {}),
        grant: grantBody(form.grant),
      };
      const next = await api<TenantAuthView>('PUT', `/v1/servers/${encodeURIComponent(serverId)}/connector`, body);
      onChange(next);
      setForm(formOf(next, serverId));
      setNotice(`Connector of ${serverId} saved.`);
    });
  };
  const remove = async () => {
    setNotice('');
    await submitting.run({}, async () => {
      const next = await api<TenantAuthView>('DELETE', `/v1/servers/${encodeURIComponent(serverId)}/connector`);
      onChange(next);
      setForm(formOf(next, serverId));
      setNotice(`Connector of ${serverId} removed.`);
    });
  };
  const name = (id: string) => servers.find((s) => s.id === id)?.name ?? id;
  return (
    <section class="card" aria-labelledby="connectors-h">
      <h2 id="connectors-h">Connectors</h2>
      <p class="muted">
        An upstream server that needs each user's own account gets a connector: its OAuth client at the upstream. Users link their account
        once; calls then carry their token, never the client's.
      </p>
      {configured.length === 0 ? (
        <Empty>No connectors yet.</Empty>
      ) : (
        <DataTable testId="connectors-table" columns={['Server', 'Issuer', 'Client id', 'Scopes', 'Secret', 'Token source']}>
          {configured.map(([id, c]) => (
            <tr key={id}>
              <td>
                {name(id)} <span class="mono small muted">{id}</span>
              </td>
              <td class="mono">{c.issuer}</td>
              <td class="mono">{c.clientId}</td>
              <td class="mono">{c.scopes.join(' ') || '—'}</td>
              <td>{c.clientSecretSet ? 'stored (never shown)' : 'none (public client)'}</td>
              <td>{grantLabel(c)}</td>
            </tr>
          ))}
        </DataTable>
      )}
      <Allowed needed="admin" what="changing connectors">
        {null}
      </Allowed>
      {canEdit && servers.length === 0 && <Empty>Register a server first.</Empty>}
      {canEdit && servers.length > 0 && (
        <form ref={submitting.ref} onSubmit={(e) => void save(e)} noValidate aria-label="Connector of a server">
          <SelectField
            id={IDS.server}
            label="Server"
            value={serverId}
            onChange={pick}
            error={submitting.fields[IDS.server]}
            options={servers.map((s) => ({
              value: s.id,
              label: `${s.name} (${s.id})${s.auth.mode === 'oauth_user' ? ' · per-user OAuth' : ''}`,
            }))}
          />
          <div class="grid2">
            <Field
              id={IDS.issuer}
              label="Connector issuer URL"
              type="url"
              value={form.issuer}
              onInput={set('issuer')}
              error={submitting.fields[IDS.issuer]}
              hint="Checked before saving: its OAuth or OpenID discovery document must name this issuer."
            />
            <Field
              id={IDS.clientId}
              label="Connector client id"
              value={form.clientId}
              onInput={set('clientId')}
              error={submitting.fields[IDS.clientId]}
            />
            <Field
              id={IDS.clientSecret}
              label="Connector client secret"
              type="password"
              autoComplete="new-password"
              value={form.clientSecret}
              onInput={set('clientSecret')}
              error={submitting.fields[IDS.clientSecret]}
              hint={
                current?.clientSecretSet
                  ? 'A secret is stored (never shown). Leave empty to keep it.'
                  : 'Leave empty for a public client (PKCE only).'
              }
            />
            <Field
              id={IDS.scopes}
              label="Connector scopes"
              value={form.scopes}
              onInput={set('scopes')}
              error={submitting.fields[IDS.scopes]}
              hint="Asked of the upstream when a user links, separated by spaces."
            />
          </div>
          <ConnectorGrantFields form={form.grant} current={current} errors={submitting.fields} onInput={setGrant} />
          <FormFooter
            error={submitting.formError}
            errorTitle="Could not save the connector"
            notice={notice}
            noticeTestId="connector-notice"
          >
            <SubmitButton busy={submitting.busy} label="Save connector" />
            {current && (
              <button type="button" onClick={() => void remove()} disabled={submitting.busy}>
                Remove connector
              </button>
            )}
          </FormFooter>
        </form>
      )}
    </section>
  );
}
