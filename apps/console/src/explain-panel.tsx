import { useEffect, useState } from 'preact/hooks';
import { api, asApiError, type ApiError } from './api';
import type { ExplainToolResponse } from './api-types';
import { BASE, linkTo, type PageId } from './router';
import { Badge, DataTable, ErrorBox, Field, SelectField } from './ui';

type Explanation = ExplainToolResponse['tools'][number];
type Verdict = Explanation['rules'][number]['verdict'];

const TONE: Record<Verdict, 'ok' | 'warn' | 'fail' | 'muted' | 'info'> = {
  pass: 'ok',
  warn: 'warn',
  hide: 'fail',
  refuse: 'fail',
  conditional: 'info',
  skip: 'muted',
};

const SURFACES = [
  { value: 'claude', label: 'Claude' },
  { value: 'openai', label: 'ChatGPT / OpenAI' },
  { value: 'generic', label: 'Any MCP client (generic)' },
];

/** A fix link from the API (`/console/<page>?…`) as an in-app link. */
function fixLink(href: string) {
  if (!href.startsWith(BASE)) return { href };
  const rest = href.slice(BASE.length);
  const at = rest.indexOf('?');
  return linkTo((at < 0 ? rest : rest.slice(0, at)) as PageId, at < 0 ? '' : rest.slice(at));
}

/** What the address asks to explain: `?explain=<name>[&surface=<id>]` (an empty name: every tool the surface does not list). */
export interface ExplainAsk {
  tool: string;
  surface: string;
}

/**
 * "Why not visible?" on the Tools page: GET /v1/explain for one tool (or every tool the surface
 * does not list), each rule with its verdict and the place that changes it. `ask` comes from the
 * address (the drawer's button, Readiness's links), and runs at once.
 */
export function ExplainPanel({ ask }: { ask: ExplainAsk | undefined }) {
  const [tool, setTool] = useState(ask?.tool ?? '');
  const [surface, setSurface] = useState(ask?.surface ?? 'claude');
  const [scopes, setScopes] = useState('');
  const [result, setResult] = useState<ExplainToolResponse | undefined>(undefined);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const [busy, setBusy] = useState(false);

  const run = async (name: string, on: string) => {
    setBusy(true);
    setError(undefined);
    const q = new URLSearchParams({ surface: on });
    if (name.trim()) q.set('tool', name.trim());
    if (scopes.trim()) q.set('scopes', scopes.trim());
    try {
      setResult(await api<ExplainToolResponse>('GET', `/v1/explain?${q.toString()}`));
    } catch (err) {
      setError(asApiError(err));
    } finally {
      setBusy(false);
    }
  };
  useEffect(() => {
    if (!ask) return;
    setTool(ask.tool);
    setSurface(ask.surface);
    void run(ask.tool, ask.surface);
  }, [ask?.tool, ask?.surface]);

  return (
    <section class="card" aria-labelledby="explain-h" data-testid="explain-panel">
      <h2 id="explain-h">Why not visible?</h2>
      <p class="muted small">
        The rules that decide whether a client lists a tool and may call it, in order, with what to change. Leave the tool empty to see
        every tool this client does not list.
      </p>
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault();
          void run(tool, surface);
        }}
      >
        <Field id="explain-tool" label="Tool name" value={tool} onInput={setTool} placeholder="create_invoice" />
        <SelectField
          id="explain-surface"
          label="Client"
          value={surface}
          onChange={setSurface}
          // A tenant-defined surface named by the address is offered too.
          options={SURFACES.some((o) => o.value === surface) ? SURFACES : [...SURFACES, { value: surface, label: surface }]}
        />
        <Field id="explain-scopes" label="Token scopes (optional)" value={scopes} onInput={setScopes} placeholder="mcp:tools" />
        <button type="submit" disabled={busy}>
          {busy ? 'Explaining…' : 'Explain'}
        </button>
      </form>
      {error && <ErrorBox error={error} title="Could not explain" />}
      {result && result.tools.length === 0 && (
        <p role="status" data-testid="explain-none">
          This client lists every tool.
        </p>
      )}
      {result?.tools.map((t) => (
        <ExplainResult key={t.tool} t={t} />
      ))}
      {result?.truncated && <p class="muted small">Only the first {result.tools.length} tools are shown.</p>}
    </section>
  );
}

function ExplainResult({ t }: { t: Explanation }) {
  const listed = t.listed ? 'listed' : 'not listed';
  const callable = t.callable === 'yes' ? 'callable' : t.callable === 'no' ? 'not callable' : 'callable depending on the caller';
  const shown = t.rules.filter((r) => r.verdict !== 'skip');
  return (
    <div data-testid={`explain-${t.tool}`}>
      <h3>
        <span class="mono">{t.tool}</span>{' '}
        <span class="muted small" role="status">
          {listed} · {callable} on {t.surface}
        </span>
      </h3>
      <DataTable testId={`explain-rules-${t.tool}`} columns={['Rule', 'Verdict', 'Why', 'Fix']}>
        {shown.map((r) => (
          <tr key={r.rule} data-rule={r.rule}>
            <td class="mono">{r.rule}</td>
            <td>
              <Badge tone={TONE[r.verdict]}>{r.verdict}</Badge>
            </td>
            <td>{r.message}</td>
            <td>{r.fix && <a {...fixLink(r.fix.href)}>{r.fix.label}</a>}</td>
          </tr>
        ))}
      </DataTable>
    </div>
  );
}
