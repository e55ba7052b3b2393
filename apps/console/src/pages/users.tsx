import { useState } from 'preact/hooks';
import { api } from '../api';
import type { DirectoryUser, InvitedUser, UserLink } from '../api-types';
import { Allowed, useCan } from '../role';
import { Badge, DataTable, ErrorBox, Field, LoadStatus, useActions, useFormSubmit, useLoad, When } from '../ui';

/** Users shown (the API pages by user name; a directory holds up to 10,000). */
const PAGE = 1000;
const STATUS_TONE = { active: 'ok', invited: 'info', disabled: 'muted' } as const;

/**
 * The tenant user directory: the people who sign in to this workspace's MCP server (from Claude,
 * ChatGPT, Cursor…) when it has no enterprise identity provider. Invite, disable and enable,
 * hand out a password-reset link, and remove passkeys. Switchboard sends no e-mail: invite and
 * reset links are shown here once, for the admin to pass on.
 */
export function UsersPage() {
  const [more, setMore] = useState(false);
  const users = useLoad(() =>
    api<{ users: DirectoryUser[]; next: string | null }>('GET', `/v1/users?limit=${PAGE}`).then((r) => {
      setMore(Boolean(r.next));
      return Array.isArray(r.users) ? r.users : [];
    }),
  );
  const actions = useActions(users.reload);
  const [link, setLink] = useState<{ username: string; link: UserLink } | null>(null);
  const canManage = useCan('admin');

  const resetLink = async (u: DirectoryUser) => {
    await actions.run(async () => {
      const l = await api<UserLink>('POST', `/v1/users/${encodeURIComponent(u.username)}/reset-link`);
      setLink({ username: u.username, link: l });
      return l.purpose === 'invite' ? `New invite link for ${u.username} below.` : `Password-reset link for ${u.username} below.`;
    });
  };
  const setDisabled = async (u: DirectoryUser, disabled: boolean) => {
    if (disabled && !confirm(`Disable ${u.username}? They can no longer sign in with a password or passkey.`)) return;
    await actions.run(async () => {
      await api('POST', `/v1/users/${encodeURIComponent(u.username)}/${disabled ? 'disable' : 'enable'}`);
      return disabled ? `${u.username} is disabled.` : `${u.username} is enabled again.`;
    });
  };
  const removePasskey = async (u: DirectoryUser, p: DirectoryUser['passkeys'][number]) => {
    if (!confirm(`Remove passkey “${p.name}” of ${u.username}?`)) return;
    await actions.run(async () => {
      await api('DELETE', `/v1/users/${encodeURIComponent(u.username)}/passkeys/${encodeURIComponent(p.id)}`);
      return `Removed passkey “${p.name}” of ${u.username}.`;
    });
  };

  return (
    <section aria-labelledby="users-h">
      <h1 id="users-h">Users</h1>
      <p class="lead">
        The people who sign in to this workspace’s MCP server when it has no enterprise identity provider (Auth page: “Local”). Each sets a
        password, and may add passkeys, through a one-time link. Switchboard sends no e-mail: copy the link and pass it on yourself.
      </p>
      <Allowed needed="admin" what="inviting and managing users">
        <InviteForm
          onInvited={async (invited) => {
            setLink({ username: invited.user.username, link: invited.link });
            actions.setNotice(`Invited ${invited.user.username}.`);
            await users.reload();
          }}
        />
      </Allowed>
      {link && <LinkBox username={link.username} link={link.link} onDone={() => setLink(null)} />}
      <h2>Directory</h2>
      {actions.error && <ErrorBox error={actions.error} title="Could not change the user" />}
      {actions.notice && (
        <p class="ok-text" role="status">
          {actions.notice}
        </p>
      )}
      <LoadStatus
        load={users}
        errorTitle="Could not load the users"
        loadingLabel="Loading users…"
        empty="No users yet. Invite someone above."
      />
      {users.data && users.data.length > 0 && (
        <DataTable testId="users-table" columns={['User', 'Status', 'Passkeys', 'Last sign-in', <span class="sr-only">Actions</span>]}>
          {users.data.map((u) => (
            <tr key={u.username} data-user={u.username}>
              <td>
                <span class="mono">{u.username}</span>
                {u.name && <span class="muted small"> {u.name}</span>}
              </td>
              <td>
                <Badge tone={STATUS_TONE[u.status]}>{u.status}</Badge>
              </td>
              <td>
                {u.passkeys.length === 0 && <span class="muted">none</span>}
                <ul class="plain">
                  {u.passkeys.map((p) => (
                    <li key={p.id} data-passkey={p.name}>
                      {p.name}{' '}
                      <span class="muted small">
                        added <When at={p.createdAt} />
                      </span>
                      {canManage && (
                        <button
                          type="button"
                          class="link danger"
                          onClick={() => void removePasskey(u, p)}
                          aria-label={`Remove passkey ${p.name} of ${u.username}`}
                        >
                          Remove
                        </button>
                      )}
                    </li>
                  ))}
                </ul>
              </td>
              <td>
                <When at={u.lastLoginAt} />
              </td>
              <td class="actions">
                {canManage && u.status !== 'disabled' && (
                  <button
                    type="button"
                    onClick={() => void resetLink(u)}
                    aria-label={`${u.status === 'invited' ? 'New invite link' : 'Reset link'} for ${u.username}`}
                  >
                    {u.status === 'invited' ? 'New invite link' : 'Reset link'}
                  </button>
                )}
                {canManage && (
                  <button
                    type="button"
                    class={u.status === 'disabled' ? '' : 'danger'}
                    onClick={() => void setDisabled(u, u.status !== 'disabled')}
                    aria-label={`${u.status === 'disabled' ? 'Enable' : 'Disable'} ${u.username}`}
                  >
                    {u.status === 'disabled' ? 'Enable' : 'Disable'}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      {more && <p class="muted small">Showing the first {PAGE} users by name; the admin API lists the rest (GET /v1/users?after=…).</p>}
    </section>
  );
}

/** A one-time link, shown once: the admin copies it and passes it on. */
function LinkBox({ username, link, onDone }: { username: string; link: UserLink; onDone: () => void }) {
  return (
    <div class="card" role="region" aria-label="One-time link" data-testid="user-link">
      <h2>{link.purpose === 'invite' ? `Invite link for ${username}` : `Password-reset link for ${username}`}</h2>
      <p>
        Send this link to {username} yourself (no e-mail is sent). It works once, until{' '}
        <time dateTime={link.expiresAt}>{new Date(link.expiresAt).toLocaleString()}</time>, and replaces any earlier link.
      </p>
      <input
        class="mono"
        style={{ width: '100%' }}
        readOnly
        value={link.url}
        aria-label="Link"
        data-testid="user-link-url"
        onFocus={(e) => (e.currentTarget as HTMLInputElement).select()}
      />
      <div class="row">
        <button type="button" onClick={() => void navigator.clipboard?.writeText(link.url)}>
          Copy
        </button>
        <button type="button" onClick={onDone}>
          Done
        </button>
      </div>
    </div>
  );
}

const IDS = { username: 'user-username', name: 'user-name' };

function InviteForm({ onInvited }: { onInvited: (invited: InvitedUser) => Promise<void> }) {
  const [form, setForm] = useState({ username: '', name: '' });
  const submitting = useFormSubmit(IDS);
  const { ref, busy, fields } = submitting;
  const set = (k: keyof typeof form) => (v: string) => setForm((f) => ({ ...f, [k]: v }));

  const submit = async (e: Event) => {
    e.preventDefault();
    const errs: Record<string, string> = {};
    if (!form.username.trim()) errs[IDS.username] = 'Enter a user name.';
    await submitting.run(errs, async () => {
      const body: Record<string, string> = { username: form.username.trim() };
      if (form.name.trim()) body.name = form.name.trim();
      const invited = await api<InvitedUser>('POST', '/v1/users', body);
      setForm({ username: '', name: '' });
      await onInvited(invited);
    });
  };

  return (
    <form ref={ref} class="card" onSubmit={(e) => void submit(e)} noValidate aria-labelledby="invite-user-h">
      <h2 id="invite-user-h">Invite a user</h2>
      <div class="grid3 even">
        <Field
          id={IDS.username}
          label="User name"
          value={form.username}
          onInput={set('username')}
          error={fields[IDS.username]}
          autoComplete="off"
          hint="What they type to sign in, e.g. their e-mail address."
        />
        <Field id={IDS.name} label="Name (optional)" value={form.name} onInput={set('name')} error={fields[IDS.name]} autoComplete="off" />
      </div>
      {submitting.formError && <ErrorBox error={submitting.formError} title="Could not invite the user" />}
      <div class="row">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Inviting…' : 'Invite user'}
        </button>
      </div>
    </form>
  );
}
