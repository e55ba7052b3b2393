import { useState } from 'preact/hooks';
import { api, type Admin } from '../api';
import type { Identity } from '../identity';
import { Allowed, useCan } from '../role';
import { Badge, DataTable, Empty, ErrorBox, Field, LoadStatus, useActions, useFormSubmit, useLoad, When } from '../ui';

/** The workspace's administrator accounts (platform sign-in to this console): list, add, remove. */
export function TeamPage({ identity }: { identity: Identity }) {
  const admins = useLoad(() => api<{ admins: Admin[] }>('GET', '/v1/admins').then((r) => (Array.isArray(r.admins) ? r.admins : [])));
  const actions = useActions(admins.reload);
  const unavailable = admins.error?.status === 404;
  const canManage = useCan('owner');
  const me = identity.user?.username;

  const remove = async (a: Admin) => {
    if (!confirm(`Remove administrator "${a.username}"? They can no longer sign in to this workspace.`)) return;
    await actions.run(async () => {
      await api('DELETE', `/v1/admins/${encodeURIComponent(a.username)}`);
      return `${a.username} can no longer sign in.`;
    });
  };

  return (
    <section aria-labelledby="team-h">
      <h1 id="team-h">Team</h1>
      <p class="lead">
        The people who can sign in to this console for workspace <span class="mono">{identity.tenant.id}</span> with a platform account. API
        keys are managed separately.
      </p>
      {unavailable && <Empty>Team accounts are not available on this registry yet: sign-in works with API keys only.</Empty>}
      {!unavailable && (
        <>
          <Allowed needed="owner" what="adding or removing administrators">
            <AddAdminForm
              onAdded={async (username) => {
                actions.setNotice(`Added ${username}. They sign in with workspace “${identity.tenant.id}”.`);
                await admins.reload();
              }}
            />
          </Allowed>
          <h2>Administrators</h2>
          {actions.error && <ErrorBox error={actions.error} title="Could not remove the administrator" />}
          {actions.notice && (
            <p class="ok-text" role="status">
              {actions.notice}
            </p>
          )}
          <LoadStatus
            load={admins}
            errorTitle="Could not load the team"
            loadingLabel="Loading the team…"
            empty="No administrator accounts yet. Add one above so people can sign in with a password instead of an API key."
          />
          {admins.data && admins.data.length > 0 && (
            <DataTable testId="admins-table" columns={['Username', 'Name', 'Added', 'Last sign-in', <span class="sr-only">Actions</span>]}>
              {admins.data.map((a) => (
                <tr key={a.username}>
                  <td class="mono">
                    {a.username}
                    {a.username === me && <span class="muted small"> (you)</span>}{' '}
                    {a.disabled && <Badge tone="muted">Access removed</Badge>}
                  </td>
                  <td>{a.name || <span class="muted">—</span>}</td>
                  <td>{a.createdAt ? <When at={a.createdAt} /> : <span class="muted">—</span>}</td>
                  <td>
                    <When at={a.lastLoginAt} />
                  </td>
                  <td class="actions">
                    {/* Removing yourself would lock you out mid-session: another owner does it. */}
                    {!a.disabled && canManage && a.username === me && <span class="muted small">Another owner can remove you</span>}
                    {!a.disabled && canManage && a.username !== me && (
                      <button type="button" class="danger" onClick={() => void remove(a)} aria-label={`Remove access of ${a.username}`}>
                        Remove access
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </DataTable>
          )}
        </>
      )}
    </section>
  );
}

const IDS = { username: 'adm-username', name: 'adm-name', password: 'adm-password' };

function AddAdminForm({ onAdded }: { onAdded: (username: string) => Promise<void> }) {
  const [form, setForm] = useState({ username: '', name: '', password: '' });
  const submitting = useFormSubmit(IDS);
  const { ref, busy, fields } = submitting;
  const set = (k: keyof typeof form) => (v: string) => setForm((f) => ({ ...f, [k]: v }));

  const submit = async (e: Event) => {
    e.preventDefault();
    const errs: Record<string, string> = {};
    if (!form.username.trim()) errs[IDS.username] = 'Enter a username.';
    if (!form.password) errs[IDS.password] = 'Enter a password for the new account.';
    await submitting.run(errs, async () => {
      const body: Record<string, string> = { username: form.username.trim(), password: form.password };
      if (form.name.trim()) body.name = form.name.trim();
      await api('POST', '/v1/admins', body);
      setForm({ username: '', name: '', password: '' });
      await onAdded(body.username);
    });
  };

  return (
    <form ref={ref} class="card" onSubmit={(e) => void submit(e)} noValidate aria-labelledby="add-admin-h">
      <h2 id="add-admin-h">Add an administrator</h2>
      <div class="grid3 even">
        <Field
          id={IDS.username}
          label="Username"
          value={form.username}
          onInput={set('username')}
          error={fields[IDS.username]}
          autoComplete="off"
        />
        <Field id={IDS.name} label="Name (optional)" value={form.name} onInput={set('name')} error={fields[IDS.name]} autoComplete="off" />
        <Field
          id={IDS.password}
          label="Password"
          type="password"
          value={form.password}
          onInput={set('password')}
          error={fields[IDS.password]}
          autoComplete="new-password"
          hint="At least 12 characters. Share it with them privately; they sign in with it."
        />
      </div>
      {submitting.formError && <ErrorBox error={submitting.formError} title="Could not add the administrator" />}
      <div class="row">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Adding…' : 'Add administrator'}
        </button>
      </div>
    </form>
  );
}
