import { useState } from 'preact/hooks';
import { api, ApiError, asApiError, isRecord, type TenantSettings } from '../api';
import { FormFooter, SubmitButton } from '../form-footer';
import { Field, LoadStatus, useFormSubmit, useLoad } from '../ui';

/** API field → DOM id. */
const IDS = {
  name: 'set-name',
  description: 'set-description',
  instructions: 'set-instructions',
  origins: 'set-origins',
  hosts: 'set-hosts',
  surfaceRules: 'set-surface-rules',
};

interface Form {
  name: string;
  description: string;
  instructions: string;
  origins: string;
  hosts: string;
  surfaceRules: string;
}

/** The form's text for a tenant as the API answers it (empty surface rules show as an empty box). */
function toForm(t: TenantSettings): Form {
  const rules = isRecord(t.surfaceRules) && Object.keys(t.surfaceRules).length > 0 ? JSON.stringify(t.surfaceRules, null, 2) : '';
  const lines = (v: unknown) => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string').join('\n') : '');
  return {
    name: t.name ?? '',
    description: t.description ?? '',
    instructions: t.instructions ?? '',
    origins: lines(t.origins),
    hosts: lines(t.hosts),
    surfaceRules: rules,
  };
}

/** One entry per non-blank line, with the 1-based line number it came from (the API names entries by index). */
function splitLines(text: string): { values: string[]; lineOf: number[] } {
  const values: string[] = [];
  const lineOf: number[] = [];
  text.split('\n').forEach((raw, i) => {
    const v = raw.trim();
    if (!v) return;
    values.push(v);
    lineOf.push(i + 1);
  });
  return { values, lineOf };
}

/**
 * The API names an entry of a list (`body.origins.3`) or a part of the surface rules
 * (`body.surfaceRules.surfaces.x`); the form has one field for each list, so the refusal is moved
 * to that field, saying which line (or part) it is about.
 */
function onFormFields(err: ApiError, lines: Record<'origins' | 'hosts', number[]>): ApiError {
  const all = err.issues.length > 0 ? err.issues : err.field ? [{ field: err.field, message: err.message }] : [];
  let moved = false;
  const issues = all.map((i) => {
    const message = i.message.startsWith(`${i.field}: `) ? i.message.slice(i.field.length + 2) : i.message;
    const list = /^body\.(origins|hosts)\.(\d+)$/.exec(i.field);
    if (list) {
      moved = true;
      const which = list[1] as 'origins' | 'hosts';
      const line = lines[which][Number(list[2])] ?? Number(list[2]) + 1;
      return { field: `body.${which}`, message: `Line ${line}: ${message}` };
    }
    const rules = /^body\.surfaceRules\.(.+)$/.exec(i.field);
    if (rules) {
      moved = true;
      return { field: 'body.surfaceRules', message: `${rules[1]}: ${message}` };
    }
    return i;
  });
  if (!moved) return err;
  return new ApiError(err.status, err.code, err.message, issues[0]?.field, issues);
}

/** The workspace's settings (`GET/PATCH /v1/tenant`): name, description, MCP instructions, browser origins, hosts, surface rules. */
export function SettingsPage({ onSaved }: { onSaved?: (t: TenantSettings) => void }) {
  const tenant = useLoad(() => api<TenantSettings>('GET', '/v1/tenant'));
  return (
    <section aria-labelledby="settings-h">
      <h1 id="settings-h">Settings</h1>
      <p class="lead">
        What clients see of this workspace, and where its MCP endpoint may be called from. Saving republishes the live version, if there is
        one.
      </p>
      <LoadStatus load={tenant} errorTitle="Could not load the settings" loadingLabel="Loading the settings…" />
      {tenant.data && <SettingsForm initial={tenant.data} onSaved={onSaved} />}
    </section>
  );
}

function SettingsForm({ initial, onSaved }: { initial: TenantSettings; onSaved?: (t: TenantSettings) => void }) {
  const [base, setBase] = useState<Form>(() => toForm(initial));
  const [form, setForm] = useState<Form>(base);
  const [notice, setNotice] = useState('');
  const submitting = useFormSubmit(IDS);
  const { ref, busy, fields } = submitting;
  const set = (k: keyof Form) => (v: string) => {
    // Typing again hides the last save's notice.
    setNotice('');
    setForm((f) => ({ ...f, [k]: v }));
  };
  /** A field's id, text, input and error line, all keyed by its API name. */
  const bind = (k: keyof Form) => ({ id: IDS[k], value: form[k], onInput: set(k), error: fields[IDS[k]] });

  const submit = async (e: Event) => {
    e.preventDefault();
    const errs: Record<string, string> = {};
    const body: Record<string, unknown> = {};
    if (form.name !== base.name) {
      if (!form.name.trim()) errs[IDS.name] = 'Enter a name for the workspace.';
      body.name = form.name.trim();
    }
    if (form.description !== base.description) body.description = form.description.trim() ? form.description : null;
    if (form.instructions !== base.instructions) body.instructions = form.instructions.trim() ? form.instructions : null;
    const origins = splitLines(form.origins);
    const hosts = splitLines(form.hosts);
    if (form.origins !== base.origins) body.origins = origins.values;
    if (form.hosts !== base.hosts) body.hosts = hosts.values;
    if (form.surfaceRules !== base.surfaceRules) {
      if (!form.surfaceRules.trim()) body.surfaceRules = {};
      else {
        try {
          const parsed: unknown = JSON.parse(form.surfaceRules);
          if (isRecord(parsed)) body.surfaceRules = parsed;
          else errs[IDS.surfaceRules] = 'Surface rules must be a JSON object, e.g. {"surfaces": {"claude": {"maxTools": 100}}}.';
        } catch (err) {
          errs[IDS.surfaceRules] = `Not valid JSON: ${err instanceof Error ? err.message : String(err)}`;
        }
      }
    }
    if (Object.keys(errs).length === 0 && Object.keys(body).length === 0) {
      submitting.clear();
      setNotice('Nothing changed.');
      return;
    }
    await submitting.run(errs, async () => {
      let saved: TenantSettings & { published?: { version?: string } };
      try {
        saved = await api<TenantSettings & { published?: { version?: string } }>('PATCH', '/v1/tenant', body);
      } catch (err) {
        throw onFormFields(asApiError(err), { origins: origins.lineOf, hosts: hosts.lineOf });
      }
      const next = toForm(saved);
      setBase(next);
      setForm(next);
      onSaved?.(saved);
      setNotice(saved.published?.version ? `Saved; republished as version ${saved.published.version}.` : 'Saved.');
    });
  };

  return (
    <form ref={ref} class="card" onSubmit={(e) => void submit(e)} noValidate aria-labelledby="settings-form-h">
      <h2 id="settings-form-h">Workspace</h2>
      <div class="grid2">
        <Field {...bind('name')} label="Name" required hint="Up to 120 characters." />
        <Field {...bind('description')} label="Description (optional)" hint="Up to 2000 characters." />
      </div>
      <Field
        {...bind('instructions')}
        label="Instructions for MCP clients (optional)"
        multiline
        rows={5}
        hint="Sent to clients as the MCP server instructions when they connect. Up to 10,000 characters."
      />
      <div class="grid2">
        <Field
          {...bind('origins')}
          label="Allowed browser origins"
          multiline
          rows={4}
          hint="One per line (e.g. https://app.example.com): extra Origins allowed to call the MCP endpoint. At most 50, each up to 200 characters."
        />
        <Field
          {...bind('hosts')}
          label="Hosts"
          multiline
          rows={4}
          hint="One per line (e.g. mcp.example.com). At most 50, each up to 253 characters."
        />
      </div>
      <Field
        {...bind('surfaceRules')}
        label="Surface rules (JSON)"
        multiline
        rows={8}
        mono
        placeholder={'{\n  "surfaces": { "claude": { "maxTools": 100 } },\n  "clientSurfaces": { "my-oauth-client": "claude" }\n}'}
        hint="Overrides of the built-in surfaces (generic, claude, openai), custom surfaces, and OAuth client → surface. Empty means none."
      />
      <FormFooter error={submitting.formError} errorTitle="Could not save the settings" notice={notice} noticeTestId="settings-notice">
        <SubmitButton busy={busy} label="Save settings" needed="admin" what="changing the settings" />
      </FormFooter>
    </form>
  );
}
