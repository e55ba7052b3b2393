import { useState } from 'preact/hooks';
import { api } from './api';
import { FormFooter, SubmitButton } from './form-footer';
import type { TenantAuthView } from './tenant-auth-view';
import { Allowed, useCan } from './role';
import { Field, useFormSubmit } from './ui';

const SCOPE = /^[\x21\x23-\x5b\x5d-\x7e]{1,128}$/;

/**
 * The scopes one published tool needs (`toolScopes` of `PATCH /v1/tenant/auth`, keyed by the
 * name clients call): admins edit them, everyone else reads them. A call whose token lacks
 * them gets 403 insufficient_scope on every gateway.
 */
export function ToolScopes({ idBase, name, auth }: { idBase: string; name: string | null; auth: TenantAuthView | undefined }) {
  const id = `${idBase}-scopes`;
  const saved = name && auth ? (auth.toolScopes[name] ?? []) : [];
  const [value, setValue] = useState(saved.join(' '));
  const [notice, setNotice] = useState('');
  const canEdit = useCan('admin');
  const submitting = useFormSubmit({ [`toolScopes.${name ?? ''}`]: id, toolScopes: id, scopes: id });
  if (!auth) return null;
  if (!name) {
    return (
      <p class="muted small" data-testid={id}>
        Required scopes: publish the tool first (they apply to the name clients call).
      </p>
    );
  }
  if (!canEdit) {
    return (
      <div class="tool-scopes" data-testid={id}>
        <p class="small">
          Required scopes:{' '}
          {saved.length > 0 ? saved.map((s) => <code key={s}>{s} </code>) : <span class="muted">none (any token of the workspace)</span>}
        </p>
        <Allowed needed="admin" what="changing a tool's scopes">
          {null}
        </Allowed>
      </div>
    );
  }
  const save = async (e: Event) => {
    e.preventDefault();
    setNotice('');
    const words = value.split(/\s+/).filter(Boolean);
    const problems: Record<string, string> = {};
    const bad = words.find((w) => !SCOPE.test(w));
    if (bad) problems[id] = `"${bad.slice(0, 40)}" is not a scope token (printable ASCII, no spaces or quotes).`;
    else if (words.length > 32) problems[id] = 'At most 32 scopes.';
    await submitting.run(problems, async () => {
      // Read-modify-write of the one map: start from the stored one, not this page's copy.
      const current = await api<TenantAuthView>('GET', '/v1/tenant/auth');
      const toolScopes = { ...current.toolScopes };
      if (words.length > 0) toolScopes[name] = words;
      else delete toolScopes[name];
      const next = await api<TenantAuthView>('PATCH', '/v1/tenant/auth', { toolScopes });
      setValue((next.toolScopes[name] ?? []).join(' '));
      setNotice(words.length > 0 ? 'Scopes saved.' : 'Scopes removed: any token of the workspace may call it.');
    });
  };
  return (
    <form
      ref={submitting.ref}
      class="tool-scopes"
      onSubmit={(e) => void save(e)}
      noValidate
      data-testid={id}
      aria-label={`Scopes of ${name}`}
    >
      <Field
        id={id}
        label={`Required scopes of ${name}`}
        value={value}
        onInput={(v) => {
          setNotice('');
          setValue(v);
        }}
        error={submitting.fields[id]}
        placeholder="e.g. mcp:tools:write"
        hint={`Separated by spaces; a token without them gets 403 insufficient_scope. Empty: any token of the workspace. Workspace scopes: ${auth.scopes.join(' ')}.`}
      />
      <FormFooter error={submitting.formError} errorTitle="Could not save the scopes" notice={notice}>
        <SubmitButton busy={submitting.busy} label="Save scopes" primary={false} />
      </FormFooter>
    </form>
  );
}
