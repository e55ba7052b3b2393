import { useState } from 'preact/hooks';
import { api, asApiError, type ApiError } from '../api';
import { Chart } from '../chart';
import { queryOf, type LimitsView, type RatePlan, type UsageRow } from '../limits-api';
import { linkTo } from '../router';
import { DataTable, ErrorBox, LoadStatus, useLoad } from '../ui';

/** The usage filters, as GET /v1/usage names them. */
export interface UsageFilters {
  tool: string;
  server: string;
  subject: string;
  from: string;
  to: string;
}

const EMPTY: UsageFilters = { tool: '', server: '', subject: '', from: '', to: '' };

/** The filter row shared by the Usage and Calls pages (dates as YYYY-MM-DD). */
export function FilterForm({ value, onApply, idPrefix, dates = 'date' }: { value: UsageFilters; onApply: (f: UsageFilters) => void; idPrefix: string; dates?: 'date' | 'datetime-local' }) {
  const [f, setF] = useState(value);
  const input = (k: keyof UsageFilters, label: string, type: 'text' | 'date' | 'datetime-local' = 'text') => (
    <label for={`${idPrefix}-${k}`}>
      {label}
      {type === 'text' ? (
        <input id={`${idPrefix}-${k}`} type="text" value={f[k]} onInput={(e) => setF({ ...f, [k]: e.currentTarget.value })} />
      ) : (
        <input id={`${idPrefix}-${k}`} type={type} value={f[k]} onInput={(e) => setF({ ...f, [k]: e.currentTarget.value })} />
      )}
    </label>
  );
  return (
    <form
      class="row filters"
      aria-label="Filters"
      onSubmit={(e) => {
        e.preventDefault();
        onApply(f);
      }}
    >
      {input('tool', 'Tool')}
      {input('server', 'Server')}
      {input('subject', 'Subject')}
      {input('from', 'From', dates)}
      {input('to', 'To', dates)}
      <button type="submit">Apply filters</button>
    </form>
  );
}

/** A plan as one line per limit (what the Usage page shows beside the numbers). */
export function PlanSummary({ plan }: { plan: RatePlan | null }) {
  if (!plan) return <p data-testid="plan-summary">Operator defaults (no plan set for this tenant).</p>;
  const spec = (s: { requestsPerSecond: number; burst: number }) => `${s.requestsPerSecond} req/s, burst ${s.burst}`;
  return (
    <ul data-testid="plan-summary" class="plain">
      <li>Tenant budget: {plan.tenant ? spec(plan.tenant) : 'default'}</li>
      <li>Per caller: {plan.subject ? spec(plan.subject) : 'default'}</li>
      <li>Daily quota of tool calls: {plan.dailyCalls ?? 'default'}</li>
      {Object.entries(plan.tools ?? {}).map(([tool, s]) => (
        <li key={tool}>
          Tool <span class="mono">{tool}</span>: {spec(s)}
        </li>
      ))}
    </ul>
  );
}

const dayToSeconds = (d: string) => Date.parse(`${d}T00:00:00Z`) / 1000;

/** Usage per day and per tool (GET /v1/usage) with filters, charts, a CSV export and the limits in force. */
export function UsagePage() {
  const [filters, setFilters] = useState<UsageFilters>(EMPTY);
  const [csvError, setCsvError] = useState<ApiError | undefined>(undefined);
  const q = (groupBy: string) => queryOf({ ...filters, groupBy, limit: 1000 });
  const byDay = useLoad(() => api<{ usage: UsageRow[] }>('GET', `/v1/usage${q('day')}`).then((r) => [...r.usage].reverse()), [filters]);
  const byTool = useLoad(() => api<{ usage: UsageRow[] }>('GET', `/v1/usage${q('tool')}`).then((r) => r.usage), [filters]);
  const limits = useLoad(() => api<LimitsView>('GET', '/v1/limits'));

  const exportCsv = async () => {
    setCsvError(undefined);
    try {
      const text = await api<string>('GET', `/v1/usage${queryOf({ ...filters, format: 'csv', limit: 1000 })}`, undefined, { raw: true });
      const a = document.createElement('a');
      a.href = URL.createObjectURL(new Blob([text], { type: 'text/csv' }));
      a.download = 'usage.csv';
      a.click();
      setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
    } catch (err) {
      setCsvError(asApiError(err));
    }
  };

  const days = byDay.data ?? [];
  const tools = byTool.data ?? [];
  return (
    <section aria-labelledby="usage-h">
      <h1 id="usage-h">Usage</h1>
      <p class="lead">Calls through the gateway per day and per tool: errors, rate-limited calls and latency. Figures arrive within seconds of the calls.</p>
      <FilterForm value={filters} onApply={setFilters} idPrefix="usage" />
      <div class="row">
        <button type="button" onClick={() => void exportCsv()} data-testid="usage-csv">
          Export CSV
        </button>
        <button type="button" onClick={() => void Promise.all([byDay.reload(), byTool.reload()])} disabled={byDay.loading}>
          {byDay.loading ? 'Refreshing…' : 'Refresh'}
        </button>
      </div>
      {csvError && <ErrorBox error={csvError} title="Could not export the usage" />}
      <div class="usage-layout">
        <div>
          <LoadStatus load={byDay} errorTitle="Could not load the usage" loadingLabel="Loading usage…" empty="No calls in this range yet." isEmpty={(d) => d.length === 0} />
          {days.length > 0 && (
            <>
              <Chart
                title="Calls per day"
                testId="chart-daily"
                x={days.map((d) => dayToSeconds(d.day))}
                series={[
                  { label: 'Calls', stroke: '#2563eb', values: days.map((d) => d.calls) },
                  { label: 'Errors', stroke: '#dc2626', values: days.map((d) => d.errors + d.toolErrors) },
                  { label: 'Rate-limited', stroke: '#d97706', values: days.map((d) => d.rateLimited) },
                ]}
              />
              <Chart title="Average latency per day (ms)" testId="chart-latency" x={days.map((d) => dayToSeconds(d.day))} series={[{ label: 'Avg ms', stroke: '#7c3aed', values: days.map((d) => d.avgMs) }]} height={160} />
            </>
          )}
          {tools.length > 0 && (
            <>
              <Chart title="Calls per tool" testId="chart-tools" x={tools.map((_, i) => i)} categories={tools.map((t) => t.tool || '(list)')} series={[{ label: 'Calls', stroke: '#2563eb', values: tools.map((t) => t.calls) }]} height={180} />
              <DataTable testId="usage-tools" columns={['Server', 'Tool', 'Calls', 'Errors', 'Tool errors', 'Rate-limited', 'Avg ms']}>
                {tools.map((t) => (
                  <tr key={`${t.server}/${t.tool}`}>
                    <td class="mono">{t.server || '—'}</td>
                    <td class="mono">{t.tool || '—'}</td>
                    <td>{t.calls}</td>
                    <td>{t.errors}</td>
                    <td>{t.toolErrors}</td>
                    <td>{t.rateLimited}</td>
                    <td>{t.avgMs}</td>
                  </tr>
                ))}
              </DataTable>
            </>
          )}
        </div>
        <aside aria-labelledby="usage-limits-h">
          <h2 id="usage-limits-h">Current limits</h2>
          <LoadStatus load={limits} errorTitle="Could not load the limits" loadingLabel="Loading limits…" />
          {limits.data && <PlanSummary plan={limits.data.rate} />}
          <p>
            <a {...linkTo('limits')}>Edit limits</a>
          </p>
        </aside>
      </div>
    </section>
  );
}
