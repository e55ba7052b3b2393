import { useState } from 'preact/hooks';
import { api, asApiError, type ApiError } from '../api';
import { Bars, Chart } from '../chart';
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
export function FilterForm({
  value,
  onApply,
  idPrefix,
  dates = 'date',
}: {
  value: UsageFilters;
  onApply: (f: UsageFilters) => void;
  idPrefix: string;
  dates?: 'date' | 'datetime-local';
}) {
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

/** The chart windows: the last N UTC days, today included (usage is counted per UTC day). */
const PRESETS = [
  { id: '24h', label: '24 h', days: 2 },
  { id: '7d', label: '7 d', days: 7 },
  { id: '30d', label: '30 d', days: 30 },
] as const;

type PresetId = (typeof PRESETS)[number]['id'];

const isoDay = (t: number) => new Date(t).toISOString().slice(0, 10);

/** Every UTC day of the window, oldest first (`now` is injectable for the test of the axis). */
export function windowDays(days: number, now = Date.now()): string[] {
  return Array.from({ length: days }, (_, i) => isoDay(now - (days - 1 - i) * 86_400_000));
}

const SHORT = new Intl.DateTimeFormat('en', { month: 'short', day: 'numeric', timeZone: 'UTC' });
const dayLabel = (d: string) => SHORT.format(new Date(`${d}T00:00:00Z`));

/** The gateway's names of protocol traffic that carry no "/" (tool names cannot contain one). */
const UNSLASHED_METHODS: ReadonlySet<string> = new Set(['initialize', 'ping', 'other']);
/**
 * A row that is protocol traffic, not a call of one of the tenant's tools: the gateway names such
 * requests by their method (initialize, tools/list, ping; `other` for the rest, notifications
 * included); `?` is a call of a tool the catalog does not know.
 */
const isProtocol = (t: UsageRow) =>
  !t.server || t.server === '-' || t.tool === '' || t.tool === '?' || t.tool.includes('/') || UNSLASHED_METHODS.has(t.tool);
/** How a protocol row reads. */
const protocolLabel = (tool: string) =>
  tool === '?' ? 'unknown tool' : tool === 'other' || !tool ? 'other methods (notifications…)' : tool;

/** How many tools the per-tool chart shows (the table below lists them all). */
const TOP_TOOLS = 10;

/** Usage per day and per tool (GET /v1/usage) with window presets, filters, charts, a CSV export and the limits in force. */
export function UsagePage() {
  const [filters, setFilters] = useState<UsageFilters>(EMPTY);
  const [preset, setPreset] = useState<PresetId>('7d');
  const [csvError, setCsvError] = useState<ApiError | undefined>(undefined);
  const win = windowDays(PRESETS.find((p) => p.id === preset)!.days);
  // Dates typed in the filters win over the preset's window.
  const range = { from: filters.from || win[0], to: filters.to || win[win.length - 1] };
  const q = (groupBy: string) => queryOf({ ...filters, ...range, groupBy, limit: 1000 });
  const byDay = useLoad(() => api<{ usage: UsageRow[] }>('GET', `/v1/usage${q('day')}`).then((r) => r.usage), [filters, preset]);
  const byTool = useLoad(() => api<{ usage: UsageRow[] }>('GET', `/v1/usage${q('tool')}`).then((r) => r.usage), [filters, preset]);
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

  const rows = byDay.data ?? [];
  const days = filters.from || filters.to ? daysBetween(range.from, range.to) : win;
  const at = (d: string) => rows.find((r) => r.day === d);
  const tools = byTool.data ?? [];
  const called = tools.filter((t) => !isProtocol(t)).sort((a, b) => b.calls - a.calls || a.tool.localeCompare(b.tool));
  const protocol = tools.filter((t) => isProtocol(t)).sort((a, b) => b.calls - a.calls);
  return (
    <section aria-labelledby="usage-h">
      <h1 id="usage-h">Usage</h1>
      <p class="lead">
        Calls through the gateway per day and per tool: errors, rate-limited calls and latency. Figures arrive within seconds of the calls;
        days are UTC.
      </p>
      <div class="row">
        <div class="presets" role="group" aria-label="Time window">
          {PRESETS.map((p) => (
            <button key={p.id} type="button" aria-pressed={p.id === preset} onClick={() => setPreset(p.id)}>
              {p.label}
            </button>
          ))}
        </div>
        <span class="muted small" data-testid="usage-window">
          {dayLabel(days[0]!)} – {dayLabel(days[days.length - 1]!)}
        </span>
      </div>
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
          <LoadStatus
            load={byDay}
            errorTitle="Could not load the usage"
            loadingLabel="Loading usage…"
            empty="No calls in this window yet."
            isEmpty={(d) => d.length === 0}
          />
          {rows.length > 0 && (
            <>
              <Chart
                title="Calls per day"
                testId="chart-daily"
                labels={days.map(dayLabel)}
                series={[
                  { label: 'Calls', stroke: '#2563eb', values: days.map((d) => at(d)?.calls ?? 0) },
                  { label: 'Errors', stroke: '#dc2626', values: days.map((d) => (at(d)?.errors ?? 0) + (at(d)?.toolErrors ?? 0)) },
                  { label: 'Rate-limited', stroke: '#d97706', values: days.map((d) => at(d)?.rateLimited ?? 0) },
                ]}
              />
              <Chart
                title="Average latency per day (ms)"
                testId="chart-latency"
                labels={days.map(dayLabel)}
                series={[{ label: 'Avg ms', stroke: '#7c3aed', values: days.map((d) => at(d)?.avgMs ?? 0) }]}
                height={160}
              />
            </>
          )}
          {tools.length > 0 && (
            <>
              {called.length > 0 && (
                <Bars
                  title={called.length > TOP_TOOLS ? `Top ${TOP_TOOLS} tools by calls` : 'Calls per tool'}
                  testId="chart-tools"
                  rows={called.slice(0, TOP_TOOLS).map((t) => ({
                    label: t.tool,
                    value: t.calls,
                    note: t.errors + t.toolErrors > 0 ? `(${t.errors + t.toolErrors} failed)` : undefined,
                  }))}
                />
              )}
              {protocol.length > 0 && (
                <p class="muted small" data-testid="protocol-traffic">
                  Protocol traffic, apart from tool calls: {protocol.reduce((n, t) => n + t.calls, 0)} requests (
                  {protocol.map((t, i) => (
                    <span key={t.tool}>
                      {i > 0 && ', '}
                      <span class="mono">{protocolLabel(t.tool)}</span> {t.calls}
                    </span>
                  ))}
                  ).
                </p>
              )}
              <DataTable testId="usage-tools" columns={['Server', 'Tool', 'Calls', 'Errors', 'Tool errors', 'Rate-limited', 'Avg ms']}>
                {[...called, ...protocol].map((t) => (
                  <tr key={`${t.server}/${t.tool}`} data-protocol={isProtocol(t) ? 'true' : undefined}>
                    <td class="mono">{isProtocol(t) ? '—' : t.server}</td>
                    <td class="mono">{isProtocol(t) ? <span class="muted">{protocolLabel(t.tool)} (protocol)</span> : t.tool}</td>
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

/** Every day from `from` to `to` (YYYY-MM-DD), at most a year of them. */
function daysBetween(from: string, to: string): string[] {
  const start = Date.parse(`${from}T00:00:00Z`);
  const end = Date.parse(`${to}T00:00:00Z`);
  if (!Number.isFinite(start) || !Number.isFinite(end) || end < start) return [from];
  const out: string[] = [];
  for (let t = start; t <= end && out.length < 366; t += 86_400_000) out.push(isoDay(t));
  return out;
}
