import { api, type AuditEntry } from '../api';
import { Empty, ErrorBox, Spinner, useLoad, When } from '../ui';

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
      {log.error && <ErrorBox error={log.error} title="Could not load the activity log" retry={() => void log.reload()} />}
      {!log.data && log.loading && <Spinner label="Loading activity…" />}
      {log.data && log.data.length === 0 && <Empty>No activity yet.</Empty>}
      {log.data && log.data.length > 0 && (
        <table class="data" data-testid="audit-table">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Who</th>
              <th scope="col">What</th>
              <th scope="col">Target</th>
              <th scope="col">Details</th>
            </tr>
          </thead>
          <tbody>
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
          </tbody>
        </table>
      )}
    </section>
  );
}
