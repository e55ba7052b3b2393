import { useState } from 'preact/hooks';
import { api } from '../api';
import type { ListCallsResponse } from '../api-types';
import { queryOf, type CallRow } from '../limits-api';
import { DetailDrawer, Pager } from '../log-ui';
import { Badge, DataTable, LoadStatus, useLoad, When } from '../ui';
import { FilterForm, type UsageFilters } from './usage';

const OUTCOMES = ['', 'ok', 'error', 'tool_error', 'rate_limited'] as const;

/** `datetime-local` (no zone) → ISO with the browser's offset, as GET /v1/calls takes it. */
function isoOf(local: string): string | undefined {
  if (!local) return undefined;
  const t = new Date(local);
  return Number.isNaN(t.getTime()) ? local : t.toISOString();
}

/** The call log (GET /v1/calls), newest first, with filters and cursor paging (a stack of cursors for "Newer"). */
export function CallsPage() {
  const [filters, setFilters] = useState<UsageFilters>({ tool: '', server: '', subject: '', from: '', to: '' });
  const [outcome, setOutcome] = useState('');
  const [cursors, setCursors] = useState<string[]>([]);
  const [open, setOpen] = useState<CallRow | undefined>(undefined);
  const cursor = cursors[cursors.length - 1];
  const page = useLoad(
    () =>
      api<ListCallsResponse>(
        'GET',
        `/v1/calls${queryOf({ ...filters, from: isoOf(filters.from), to: isoOf(filters.to), outcome, cursor, limit: 25 })}`,
      ),
    [filters, outcome, cursor],
  );
  const tone = (o: string) => (o === 'ok' ? 'ok' : o === 'rate_limited' ? 'warn' : 'fail');
  return (
    <section aria-labelledby="calls-h">
      <h1 id="calls-h">Calls</h1>
      <p class="lead">
        Every tool call, resource read and prompt fetch through the gateway, newest first. Arguments and results are stored only if the
        tenant opts in.
      </p>
      <FilterForm
        value={filters}
        idPrefix="calls"
        dates="datetime-local"
        onApply={(f) => {
          setCursors([]);
          setFilters(f);
        }}
      />
      <div class="row">
        <label for="calls-outcome">
          Outcome{' '}
          <select
            id="calls-outcome"
            value={outcome}
            onChange={(e) => {
              setCursors([]);
              setOutcome((e.target as HTMLSelectElement).value);
            }}
          >
            {OUTCOMES.map((o) => (
              <option key={o} value={o}>
                {o || 'any'}
              </option>
            ))}
          </select>
        </label>
      </div>
      {page.data?.captures === 'withheld' && (
        <p class="muted small" data-testid="captures-withheld">
          Captured arguments and results are shown to the admin and owner roles only.
        </p>
      )}
      <LoadStatus
        load={page}
        errorTitle="Could not load the call log"
        loadingLabel="Loading calls…"
        empty="No calls match."
        isEmpty={(d) => d.calls.length === 0}
      />
      {page.data && page.data.calls.length > 0 && (
        <DataTable
          testId="calls-table"
          columns={['When', 'Method', 'Server', 'Tool', 'Outcome', 'Subject', 'Client', 'ms', 'Bytes in/out', 'Captured', '']}
        >
          {page.data.calls.map((c) => (
            <tr key={c.id}>
              <td>
                <When at={c.at} />
              </td>
              <td class="mono small nowrap">{c.method}</td>
              <td class="mono">{c.server ?? '—'}</td>
              <td class="mono">{c.tool ?? '—'}</td>
              <td>
                <Badge tone={tone(c.outcome)}>{c.outcome}</Badge>
              </td>
              <td class="mono small wrap">{c.subject ?? '—'}</td>
              <td class="mono small wrap">{c.clientId ?? '—'}</td>
              <td>{c.durationMs}</td>
              <td class="small">
                {c.bytesIn}/{c.bytesOut}
              </td>
              <td class="small">
                <Captured row={c} />
              </td>
              <td>
                <button type="button" class="small" onClick={() => setOpen(c)} aria-label={`Details of the call at ${c.at}`}>
                  Details
                </button>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <Pager
        page={cursors.length + 1}
        loading={page.loading}
        onNewer={cursors.length > 0 ? () => setCursors(cursors.slice(0, -1)) : undefined}
        onOlder={page.data?.nextCursor ? () => setCursors([...cursors, page.data!.nextCursor!]) : undefined}
      />
      {open && (
        <DetailDrawer title={`${open.method}${open.tool ? ` ${open.tool}` : ''}: ${open.outcome}`} onClose={() => setOpen(undefined)}>
          <dl class="facts">
            {Object.entries(open)
              .filter(([k]) => k !== 'arguments' && k !== 'result')
              .map(([k, v]) => (
                <>
                  <dt key={`${k}-t`}>{k}</dt>
                  <dd key={`${k}-d`} class="mono wrap">
                    {v === null || v === undefined ? '—' : typeof v === 'object' ? JSON.stringify(v) : String(v)}
                  </dd>
                </>
              ))}
          </dl>
          <Captured row={open} />
        </DetailDrawer>
      )}
    </section>
  );
}

/** A row's captured arguments / result (redacted at the gateway); absent for roles below admin and for tenants that do not opt in. */
function Captured({ row }: { row: CallRow }) {
  const shown = [
    ['Arguments', row.arguments],
    ['Result', row.result],
  ].filter(([, v]) => v !== undefined && v !== null) as Array<[string, unknown]>;
  if (shown.length === 0) return <>—</>;
  return (
    <details>
      <summary>View</summary>
      {shown.map(([label, value]) => (
        <div key={label}>
          <strong>{label}</strong>
          <pre class="mono small wrap">{JSON.stringify(value, null, 2)}</pre>
        </div>
      ))}
    </details>
  );
}
