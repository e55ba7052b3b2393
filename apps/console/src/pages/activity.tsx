import { api, type AuditEntry } from '../api';
import { AuditExportSettings } from '../audit-export-settings';
import { DataTable, LoadStatus, useLoad, When } from '../ui';

/** The audit log: every change to the tenant, newest first. */
export function ActivityPage() {
  const log = useLoad(() => api<{ entries: AuditEntry[] }>('GET', '/v1/audit?limit=200').then((r) => r.entries));
  return (
    <section aria-labelledby="activity-h">
      <h1 id="activity-h">Activity</h1>
      <p class="lead">Every change to your tenant, who made it, and when (newest first).</p>
      <div class="row">
        <button type="button" onClick={() => void log.reload()} disabled={log.loading}>
          {log.loading ? 'Refreshing…' : 'Refresh'}
        </button>
      </div>
      <LoadStatus load={log} errorTitle="Could not load the activity log" loadingLabel="Loading activity…" empty="No activity yet." />
      {log.data && log.data.length > 0 && (
        <DataTable testId="audit-table" columns={['When', 'Who', 'What', 'Target', 'Details']}>
          {log.data.map((e) => (
            <tr key={String(e.id)}>
              <td>
                <When at={e.at} />
              </td>
              <td class="mono small">{e.actor}</td>
              <td class="mono">{e.action}</td>
              <td class="mono wrap">{e.target ?? '—'}</td>
              <td class="mono small wrap details">{Object.keys(e.details ?? {}).length ? JSON.stringify(e.details) : '—'}</td>
            </tr>
          ))}
        </DataTable>
      )}
      <AuditExportSettings />
    </section>
  );
}
