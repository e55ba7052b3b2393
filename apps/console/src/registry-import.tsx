import { useState } from 'preact/hooks';
import { api, type Server } from './api';
import type { ImportServerResponse } from './api-types';
import type { Enqueued } from './server-forms';
import { ErrorBox, Field, useFormSubmit } from './ui';

const IDS = { name: 'imp-name', id: 'imp-id', token: 'imp-token' };

/**
 * Registers a server from the MCP Registry by its name (`POST /v1/servers/import`): the registry
 * reads and validates its server.json and registers its remote; a bearer token is sent only when given.
 */
export function RegistryImportForm({ onImported }: { onImported: (s: Server, discovery: Enqueued | undefined) => Promise<void> }) {
  const [form, setForm] = useState({ name: '', id: '', token: '' });
  const submitting = useFormSubmit({ name: IDS.name, id: IDS.id, auth: IDS.token, 'auth.token': IDS.token });
  const { ref, busy, fields } = submitting;
  const set = (k: keyof typeof form) => (v: string) => setForm((f) => ({ ...f, [k]: v }));

  const submit = async (e: Event) => {
    e.preventDefault();
    const errs: Record<string, string> = {};
    if (!form.name.trim()) errs[IDS.name] = 'Enter the server name as the registry lists it, e.g. io.github.owner/server.';
    await submitting.run(errs, async () => {
      const body: Record<string, unknown> = { name: form.name.trim() };
      if (form.id.trim()) body.id = form.id.trim();
      if (form.token) body.auth = { mode: 'bearer', token: form.token };
      const r = await api<ImportServerResponse>('POST', '/v1/servers/import', body);
      setForm({ name: '', id: '', token: '' });
      await onImported(r.server as Server, r.discovery as Enqueued | undefined);
    });
  };

  return (
    <form ref={ref} class="card" onSubmit={(e) => void submit(e)} noValidate aria-labelledby="import-h">
      <h2 id="import-h">Add from the MCP Registry</h2>
      <div class="grid3 even">
        <Field
          id={IDS.name}
          label="Registry name"
          value={form.name}
          onInput={set('name')}
          error={fields[IDS.name]}
          placeholder="io.github.owner/server"
          autoComplete="off"
        />
        <Field
          id={IDS.id}
          label="Register as id (optional)"
          value={form.id}
          onInput={set('id')}
          error={fields[IDS.id]}
          autoComplete="off"
          hint="Default: the part of the name after the slash."
        />
        <Field
          id={IDS.token}
          label="Authorization token (optional)"
          type="password"
          value={form.token}
          onInput={set('token')}
          error={fields[IDS.token]}
          autoComplete="off"
          hint="Sent as Authorization: Bearer, only if the server asks for it."
        />
      </div>
      {submitting.formError && <ErrorBox error={submitting.formError} title="Could not add the server from the registry" />}
      <div class="row">
        <button type="submit" disabled={busy}>
          {busy ? 'Adding…' : 'Add from registry'}
        </button>
      </div>
    </form>
  );
}
