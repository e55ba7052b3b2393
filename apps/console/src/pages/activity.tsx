import { useState } from 'preact/hooks';
import { api, type AuditEntry } from '../api';
import { AuditExportSettings } from '../audit-export-settings';
import { queryOf } from '../limits-api';
import { DetailDrawer, Pager } from '../log-ui';
import { DataTable, LoadStatus, useLoad, When } from '../ui';

/** Rows per page of the log. */
const PAGE = 50;

const FAMILIES = [
  { value: '', label: 'Everything' },
  { value: 'server.*', label: 'Servers and discovery' },
  { value: 'publication.*', label: 'Publishing' },
  { value: 'snapshot.*', label: 'Snapshots' },
  { value: 'change.*', label: 'Reviewed changes' },
  { value: 'readiness.run', label: 'Readiness checks' },
  { value: 'key.*', label: 'API keys' },
  { value: 'tenant.*', label: 'Settings' },
  { value: 'limits.*', label: 'Limits' },
  { value: 'auth.*', label: 'Sign-in settings' },
  { value: 'console.*', label: 'Console sign-ins' },
];

const s = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');

/** What happened, as a sentence (an action this console does not know is shown by its name). */
export function sentenceOf(e: AuditEntry): string {
  const d = (e.details ?? {}) as Record<string, unknown>;
  const t = e.target ?? '';
  switch (e.action) {
    case 'server.create':
      return `Registered server ${t}.`;
    case 'server.update':
      return `Changed the settings of server ${t}.`;
    case 'server.delete':
      return `Removed server ${t}.`;
    case 'server.discover':
      return `Asked for a new discovery of ${t}.`;
    case 'server.discovered':
      return `Discovery of ${t} found ${s(d.items) || 'its'} items${d.transport ? ` over ${s(d.transport)}` : ''}.`;
    case 'server.discovery_failed':
      return `Discovery of ${t} failed: ${s(d.error) || 'no reason given'}.`;
    case 'publication.publish':
      return `Published ${Array.isArray(d.items) ? `${d.items.length} item(s)` : 'items'} of ${t}.`;
    case 'publication.unpublish':
      return `Unpublished items of ${t}.`;
    case 'snapshot.publish':
      return `Gateways now serve ${s(d.tools) || 'the'} tools (snapshot ${t.slice(0, 12)}${d.reason ? `, ${s(d.reason)}` : ''}).`;
    case 'change.approve':
      return `Approved an upstream change to ${t}.`;
    case 'readiness.run': {
      const sum = (d.summary ?? {}) as Record<string, unknown>;
      return `Ran the readiness check on ${t}: ${s(sum.pass) || 0} passed, ${s(sum.fail) || 0} failed.`;
    }
    case 'tenant.update':
      return 'Changed the tenant settings.';
    case 'limits.update':
      return 'Changed the limits.';
    case 'key.create':
      return `Created an API key${d.name ? ` “${s(d.name)}”` : ''}.`;
    case 'key.revoke':
      return 'Revoked an API key.';
    case 'console.sign_in':
      return 'Signed in to the console.';
    case 'console.sign_out':
      return 'Signed out of the console.';
    default:
      return `${e.action}${t ? ` on ${t}` : ''}.`;
  }
}

interface AuditPage {
  entries: AuditEntry[];
  nextCursor?: string | null;
}

/** The audit log, newest first: filters, cursor paging, a sentence per event and its details on demand. */
export function ActivityPage() {
  const [action, setAction] = useState('');
  const [system, setSystem] = useState(false);
  const [cursors, setCursors] = useState<string[]>([]);
  const [open, setOpen] = useState<AuditEntry | undefined>(undefined);
  const cursor = cursors[cursors.length - 1];
  const log = useLoad(
    () => api<AuditPage>('GET', `/v1/audit${queryOf({ limit: PAGE, action, cursor, system: system ? 'include' : 'exclude' })}`),
    [action, system, cursor],
  );
  const entries = log.data?.entries ?? [];
  const next = log.data?.nextCursor ?? null;
  return (
    <section aria-labelledby="activity-h">
      <h1 id="activity-h">Activity</h1>
      <p class="lead">Every change to your tenant, who made it, and when (newest first).</p>
      <div class="row filters">
        <label for="activity-action">
          Show
          <select
            id="activity-action"
            value={action}
            onChange={(e) => {
              setCursors([]);
              setAction(e.currentTarget.value);
            }}
          >
            {FAMILIES.map((f) => (
              <option key={f.value} value={f.value}>
                {f.label}
              </option>
            ))}
          </select>
        </label>
        <label class="check" for="activity-system">
          <input
            id="activity-system"
            type="checkbox"
            checked={system}
            onChange={(e) => {
              setCursors([]);
              setSystem(e.currentTarget.checked);
            }}
          />{' '}
          Include system events (discovery runs, reconciliation)
        </label>
        <button type="button" onClick={() => void log.reload()} disabled={log.loading}>
          {log.loading ? 'Refreshing…' : 'Refresh'}
        </button>
      </div>
      <LoadStatus
        load={log}
        errorTitle="Could not load the activity log"
        loadingLabel="Loading activity…"
        empty="No activity matches."
        isEmpty={(d) => d.entries.length === 0}
      />
      {entries.length > 0 && (
        <DataTable testId="audit-table" columns={['When', 'Who', 'What happened', '']}>
          {entries.map((e) => (
            <tr key={String(e.id)} data-action={e.action} data-id={String(e.id)}>
              <td class="nowrap">
                <When at={e.at} />
              </td>
              <td class="small wrap">{e.actor === 'system' ? <span class="muted">Switchboard</span> : e.actor}</td>
              <td>
                {sentenceOf(e)} <span class="muted small mono nowrap">{e.action}</span>
              </td>
              <td>
                <button type="button" class="small" onClick={() => setOpen(e)} aria-label={`Details of ${e.action} at ${e.at}`}>
                  Details
                </button>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <Pager
        page={cursors.length + 1}
        loading={log.loading}
        onNewer={cursors.length > 0 ? () => setCursors(cursors.slice(0, -1)) : undefined}
        onOlder={next ? () => setCursors([...cursors, next]) : undefined}
      />
      {open && (
        <DetailDrawer title={sentenceOf(open)} onClose={() => setOpen(undefined)}>
          <dl class="facts">
            <dt>When</dt>
            <dd>
              <When at={open.at} /> <span class="muted small">{open.at}</span>
            </dd>
            <dt>Who</dt>
            <dd class="wrap">{open.actor}</dd>
            <dt>Action</dt>
            <dd class="mono">{open.action}</dd>
            <dt>Target</dt>
            <dd class="mono wrap">{open.target ?? '—'}</dd>
          </dl>
          <h3>Details</h3>
          <pre class="mono small wrap">{JSON.stringify(open.details ?? {}, null, 2)}</pre>
        </DetailDrawer>
      )}
      <AuditExportSettings />
    </section>
  );
}
