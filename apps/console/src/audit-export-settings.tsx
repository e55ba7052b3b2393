import { useState } from 'preact/hooks';
import { api } from './api';
import type { AuditExportView, PutAuditExportBody } from './api-types';
import { Allowed, useCan } from './role';
import { Badge, ErrorBox, Field, LoadStatus, useActions, useFormSubmit, useLoad, When } from './ui';

interface Form {
  endpoint: string;
  bucket: string;
  region: string;
  prefix: string;
  accessKeyId: string;
  secretAccessKey: string;
}

/** API field → DOM id, for the registry's refusals (which name the field). */
const IDS: Record<string, string> = {
  endpoint: 'ae-endpoint',
  bucket: 'ae-bucket',
  region: 'ae-region',
  prefix: 'ae-prefix',
  accessKeyId: 'ae-key-id',
  secretAccessKey: 'ae-secret',
};

function toForm(v: AuditExportView | undefined): Form {
  return {
    endpoint: v?.endpoint ?? '',
    bucket: v?.bucket ?? '',
    region: v?.region ?? 'us-east-1',
    prefix: v?.prefix ?? '',
    accessKeyId: v?.accessKeyId ?? '',
    secretAccessKey: '',
  };
}

/** The export's state at a glance: status, last error, how many entries went out. */
function ExportState({ view }: { view: AuditExportView }) {
  const tone = view.status === 'ok' ? 'ok' : view.status === 'error' ? 'fail' : 'muted';
  return (
    <div data-testid="audit-export-state">
      <p>
        <Badge tone={tone}>{view.enabled === false ? 'paused' : (view.status ?? 'pending')}</Badge> {view.exported ?? 0} entries exported to{' '}
        <span class="mono">{`${view.bucket}/${view.prefix ?? ''}`}</span>
        {view.lastExportAt && (
          <>
            , last <When at={view.lastExportAt} />
          </>
        )}
      </p>
      {view.status === 'error' && view.lastError && (
        <p class="error-box" role="alert" data-testid="audit-export-error">
          {view.lastError}
        </p>
      )}
    </div>
  );
}

/**
 * Settings of the audit export (GET/PUT/DELETE /v1/audit-export): the S3-compatible bucket the
 * audit log is streamed to, and its state. The secret key is write-only: left empty, the stored one is kept.
 */
export function AuditExportSettings() {
  const load = useLoad(() => api<AuditExportView>('GET', '/v1/audit-export'));
  const canEdit = useCan('owner');
  const actions = useActions(load.reload);
  return (
    <section aria-labelledby="audit-export-h">
      <h2 id="audit-export-h">Export to object storage</h2>
      <p class="muted small">
        Streams this log to an S3-compatible bucket as gzipped JSON Lines, one object per day and batch, at least once.
      </p>
      <LoadStatus load={load} errorTitle="Could not load the audit export" loadingLabel="Loading audit export…" />
      {load.data?.configured && <ExportState view={load.data} />}
      {load.data?.configured && (
        <div class="row">
          <Allowed needed="admin">
            <button
              type="button"
              onClick={() => void actions.run(async () => (await api('POST', '/v1/audit-export/run'), 'Export requested.'))}
            >
              Export now
            </button>
          </Allowed>
          <Allowed needed="owner">
            <button
              type="button"
              class="danger"
              onClick={() => void actions.run(async () => (await api('DELETE', '/v1/audit-export'), 'Audit export removed.'))}
            >
              Stop exporting
            </button>
          </Allowed>
          {actions.notice && <span role="status">{actions.notice}</span>}
        </div>
      )}
      {actions.error && <ErrorBox error={actions.error} />}
      {load.data && canEdit && <AuditExportForm initial={load.data} onSaved={() => void load.reload()} />}
      <Allowed needed="owner" what="changing the audit export">
        {null}
      </Allowed>
    </section>
  );
}

function AuditExportForm({ initial, onSaved }: { initial: AuditExportView; onSaved: () => void }) {
  const [form, setForm] = useState<Form>(() => toForm(initial));
  const [saved, setSaved] = useState('');
  const submit = useFormSubmit(IDS);
  const set = (k: keyof Form) => (v: string) => setForm({ ...form, [k]: v });
  const onSubmit = (e: Event) => {
    e.preventDefault();
    setSaved('');
    const problems: Record<string, string> = {};
    if (!initial.configured && !form.secretAccessKey) problems['ae-secret'] = 'Required the first time.';
    void submit.run(problems, async () => {
      const body: PutAuditExportBody = {
        endpoint: form.endpoint.trim(),
        bucket: form.bucket.trim(),
        region: form.region.trim(),
        prefix: form.prefix.trim(),
        accessKeyId: form.accessKeyId.trim(),
      };
      if (form.secretAccessKey) body.secretAccessKey = form.secretAccessKey;
      const r = await api<AuditExportView>('PUT', '/v1/audit-export', body);
      setForm(toForm(r));
      setSaved('Saved; the export starts within a few seconds.');
      onSaved();
    });
  };
  return (
    <form ref={submit.ref} onSubmit={onSubmit} aria-label="Audit export" noValidate>
      <div class="grid2">
        <Field
          id="ae-endpoint"
          label="Endpoint"
          value={form.endpoint}
          onInput={set('endpoint')}
          error={submit.fields['ae-endpoint']}
          type="url"
          placeholder="https://s3.eu-west-1.amazonaws.com"
        />
        <Field id="ae-bucket" label="Bucket" value={form.bucket} onInput={set('bucket')} error={submit.fields['ae-bucket']} />
        <Field id="ae-region" label="Region" value={form.region} onInput={set('region')} error={submit.fields['ae-region']} />
        <Field
          id="ae-prefix"
          label="Prefix"
          value={form.prefix}
          onInput={set('prefix')}
          error={submit.fields['ae-prefix']}
          hint="Optional, e.g. switchboard/audit"
        />
        <Field
          id="ae-key-id"
          label="Access key id"
          value={form.accessKeyId}
          onInput={set('accessKeyId')}
          error={submit.fields['ae-key-id']}
          autoComplete="off"
        />
        <Field
          id="ae-secret"
          label="Secret access key"
          value={form.secretAccessKey}
          onInput={set('secretAccessKey')}
          error={submit.fields['ae-secret']}
          type="password"
          autoComplete="new-password"
          hint={initial.configured ? 'Stored encrypted; leave empty to keep it.' : 'Stored encrypted, never shown again.'}
        />
      </div>
      {submit.formError && <ErrorBox error={submit.formError} title="Could not save the audit export" />}
      <div class="row">
        <button type="submit" disabled={submit.busy}>
          {submit.busy ? 'Saving…' : 'Save export'}
        </button>
        {saved && (
          <span role="status" data-testid="audit-export-saved">
            {saved}
          </span>
        )}
      </div>
    </form>
  );
}
