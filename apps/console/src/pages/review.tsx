import { useRef, useState } from 'preact/hooks';
import { api, asApiError, type ApiError, type Change, type DiffEntry } from '../api';
import { notifyChanged } from '../events';
import { HINTS } from '../hints';
import { PatternNotice } from '../pattern-notice';
import { FindingsNotice } from '../findings-notice';
import { linkTo } from '../router';
import { Badge, ErrorBox, LoadStatus, useFocusOnError, useLoad } from '../ui';
import { Allowed } from '../role';

interface Row {
  path: string;
  op: 'added' | 'removed' | 'changed';
  before: string | undefined;
  after: string | undefined;
}

function text(v: unknown): string | undefined {
  return v === undefined ? undefined : JSON.stringify(v);
}

/** The registry's field-by-field diff (the console ships with the registry that serves it, so it is always there). */
function rowsOf(c: Change): Row[] {
  return (Array.isArray(c.diff) ? c.diff : [])
    .filter((d): d is DiffEntry => typeof d === 'object' && d !== null && typeof d.path === 'string')
    .map((d) => ({
      path: d.path,
      op: d.op === 'added' || d.op === 'removed' ? d.op : 'changed',
      before: text(d.before),
      after: text(d.after),
    }));
}

const OP_LABEL: Record<Row['op'], string> = { added: 'Added', removed: 'Removed', changed: 'Changed' };

/** Published tools whose upstream definition changed or disappeared: the approved version stays live until a change is approved here. */
export function ReviewPage() {
  const changes = useLoad(() => api<{ changes: Change[] }>('GET', '/v1/changes').then((r) => (Array.isArray(r.changes) ? r.changes : [])));
  const [notice, setNotice] = useState('');
  const list = changes.data ?? [];
  return (
    <section aria-labelledby="review-h">
      <h1 id="review-h">Review</h1>
      <p class="lead">
        When a published tool changes on your server, clients keep getting the version you approved until you approve the change here.
        Compare what is live with what your server now lists, then approve.
      </p>
      <div class="row">
        <button type="button" onClick={() => void changes.reload()} disabled={changes.loading}>
          {changes.loading ? 'Refreshing…' : 'Refresh'}
        </button>
        {notice && (
          <span class="ok-text" role="status" data-testid="review-notice">
            {notice}
          </span>
        )}
      </div>
      <LoadStatus
        load={changes}
        errorTitle="Could not load the changes awaiting review"
        loadingLabel="Loading changes…"
        empty={
          <>
            <strong>Nothing awaiting review.</strong> Every published tool matches what its server lists now. Changes appear here after a
            discovery finds one.
          </>
        }
      />
      {list.map((c) => (
        <ChangeCard
          key={`${c.serverId}/${c.kind}/${c.name}`}
          change={c}
          onApproved={async (msg) => {
            setNotice(msg);
            notifyChanged();
            await changes.reload();
          }}
        />
      ))}
    </section>
  );
}

function ChangeCard({ change: c, onApproved }: { change: Change; onApproved: (msg: string) => Promise<void> }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const [acknowledged, setAcknowledged] = useState(false);
  const findings = c.change === 'removed' ? [] : (c.findings ?? []);
  const ref = useRef<HTMLElement>(null);
  useFocusOnError(ref, error);
  const removed = c.change === 'removed';
  const rows = removed ? [] : rowsOf(c);
  const missing = Array.isArray(c.missingHints) ? c.missingHints : [];
  const testId = `change-${c.serverId}-${c.name}`.replace(/[^A-Za-z0-9_-]/g, '_');

  const approve = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await api('POST', '/v1/changes/approve', {
        serverId: c.serverId,
        kind: c.kind,
        name: c.name,
        ...(findings.length > 0 ? { acknowledgeFindings: acknowledged } : {}),
      });
      await onApproved(
        removed ? `Approved: ${c.exposedName} is no longer published.` : `Approved: ${c.exposedName} now serves the new definition.`,
      );
    } catch (err) {
      setError(asApiError(err));
      setBusy(false);
    }
  };

  return (
    <section ref={ref} class="card" aria-labelledby={`${testId}-h`} data-testid={testId}>
      <div class="tool-head">
        <h2 id={`${testId}-h`} class="mono">
          {c.exposedName}
        </h2>
        {removed ? <Badge tone="fail">Removed upstream</Badge> : <Badge tone="warn">Changed upstream</Badge>}
        <span class="muted small">
          {c.kind} <span class="mono">{c.name}</span> on server <span class="mono">{c.serverId}</span>
        </span>
      </div>
      {removed ? (
        <p>Your server no longer lists this {c.kind}. Clients still get the approved version; approving the removal unpublishes it.</p>
      ) : rows.length === 0 ? (
        <p class="muted">The definitions differ only in ways that do not show field by field (e.g. key order).</p>
      ) : (
        <div class="scroll-x">
          <table class="data diff review">
            <caption class="sr-only">What changed in {c.exposedName}</caption>
            <thead>
              <tr>
                <th scope="col">Field</th>
                <th scope="col">Live (approved)</th>
                <th scope="col">Upstream now</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.path} class={`row-${r.op}`} data-path={r.path}>
                  <th scope="row" class="mono">
                    {r.path || '(whole definition)'} <span class={`op op-${r.op}`}>{OP_LABEL[r.op]}</span>
                  </th>
                  <td class={`mono wrap before${r.before === undefined ? ' absent' : ''}`}>{r.before ?? '—'}</td>
                  <td class={`mono wrap after${r.after === undefined ? ' absent' : ''}`}>{r.after ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {missing.length > 0 && !removed && (
        <p class="notice">
          The new definition lacks {missing.map((h) => HINTS.find((x) => x.key === h)?.label ?? h).join(', ')} ({missing.join(', ')}).{' '}
          <a {...linkTo('tools')}>Set them on the Tools page</a> before approving.
        </p>
      )}
      {!removed && (c.unsupportedPatterns ?? []).length > 0 && (
        <PatternNotice patterns={c.unsupportedPatterns ?? []} testId={`${testId}-patterns`} />
      )}
      {findings.length > 0 && (
        <FindingsNotice findings={findings} testId={`${testId}-findings`} acknowledged={acknowledged} onAcknowledge={setAcknowledged} />
      )}
      {error && <ErrorBox error={error} title="Could not approve this change" />}
      {error?.code === 'HINTS_REQUIRED' && (
        <p>
          <a {...linkTo('tools')}>Open the Tools page</a> to state the missing hints as overrides, then approve again.
        </p>
      )}
      <div class="row">
        <Allowed needed="publisher" what="approving changes">
          <button type="button" class="primary" onClick={() => void approve()} disabled={busy}>
            {busy ? 'Approving…' : removed ? 'Approve removal' : 'Approve change'}
          </button>
        </Allowed>
      </div>
    </section>
  );
}
