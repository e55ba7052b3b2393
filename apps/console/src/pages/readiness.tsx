import { useState } from 'preact/hooks';
import { api, type CheckStatus, type Publication, type ReadinessReport, type Tenant } from '../api';
import { ReachabilityBanner } from '../reachability';
import { linkTo, type PageId } from '../router';
import { Badge, ErrorBox, Field, useFormSubmit, When } from '../ui';

const TONE: Record<CheckStatus, 'ok' | 'fail' | 'warn' | 'muted'> = { pass: 'ok', fail: 'fail', warn: 'warn', skip: 'muted' };
/** API field → DOM id. */
const READINESS_IDS = { url: 'rd-url', accessToken: 'rd-token' };
const LABEL: Record<CheckStatus, string> = { pass: 'Pass', fail: 'Fail', warn: 'Warning', skip: 'Skipped' };

/** Where each failing check is fixed in the console: the fix text links there. */
const FIX_AT: Record<string, { page: PageId; search?: string; label: string }> = {
  'tool-titles': { page: 'tools', search: '?filter=attention', label: 'Open the tools that need attention' },
  'tool-hints': { page: 'tools', search: '?filter=attention', label: 'Open the tools that need attention' },
  'tool-names': { page: 'tools', label: 'Open the Tools table' },
  'chatgpt-tools': { page: 'tools', label: 'Open the Tools table' },
  'claude-tools': { page: 'tools', label: 'Open the Tools table' },
  'claude-no-security-schemes': { page: 'settings', label: 'Open the surface rules in Settings' },
  'claude-no-openai-meta': { page: 'settings', label: 'Open the surface rules in Settings' },
  'auth-challenge': { page: 'auth', label: 'Open the sign-in settings' },
  'prm-resource': { page: 'auth', label: 'Open the sign-in settings' },
  'prm-authorization-servers': { page: 'auth', label: 'Open the sign-in settings' },
  'as-metadata': { page: 'auth', label: 'Open the sign-in settings' },
  'as-pkce': { page: 'auth', label: 'Open the sign-in settings' },
  'as-registration': { page: 'auth', label: 'Open the sign-in settings' },
  'dcr-claude': { page: 'auth', label: 'Open the sign-in settings' },
  'dcr-chatgpt': { page: 'auth', label: 'Open the sign-in settings' },
};

/** The connector readiness check: replays what Claude and ChatGPT do when connecting, and shows each step. */
export function ReadinessPage({ tenant }: { tenant: Tenant }) {
  const [url, setUrl] = useState('');
  const [token, setToken] = useState('');
  const [report, setReport] = useState<ReadinessReport | undefined>(undefined);
  const [published, setPublished] = useState<Map<string, string>>(new Map());
  const submitting = useFormSubmit(READINESS_IDS);
  const { ref, busy, fields, formError: form } = submitting;

  const run = async (e: Event) => {
    e.preventDefault();
    await submitting.run({}, async () => {
      const body: Record<string, string> = {};
      if (url.trim()) body.url = url.trim();
      if (token) body.accessToken = token;
      const next = await api<ReadinessReport>('POST', `/v1/tenants/${encodeURIComponent(tenant.id)}/readiness`, body);
      // A tool check names exposed names; the fix link opens the tool it was published from.
      const named = next.checks.some((c) => c.tools?.length === 1);
      const pubs = named
        ? await api<{ publications: Publication[] }>('GET', '/v1/publications').catch(() => ({ publications: [] }))
        : { publications: [] };
      setPublished(new Map(pubs.publications.map((x) => [x.exposedName, `${x.serverId}/${x.upstreamName}`])));
      setReport(next);
    });
  };

  const order: CheckStatus[] = ['fail', 'warn', 'pass', 'skip'];
  const checks = report ? [...report.checks].sort((a, b) => order.indexOf(a.status) - order.indexOf(b.status)) : [];

  return (
    <section aria-labelledby="readiness-h">
      <h1 id="readiness-h">Readiness</h1>
      <p class="lead">
        Replays, against your live MCP URL, what Claude and ChatGPT do when they connect: discovery, version headers, event streams, the
        OAuth chain, and the tool list each one receives. Every failed step says why and how to fix it.
      </p>
      <ReachabilityBanner url={url.trim() || tenant.mcpUrl}>
        {' '}
        A check from here can pass while claude.ai and ChatGPT still cannot connect.
      </ReachabilityBanner>
      <form ref={ref} class="card" onSubmit={(e) => void run(e)} noValidate>
        <div class="grid2">
          <Field
            id="rd-url"
            label="URL to check (optional)"
            type="url"
            value={url}
            onInput={setUrl}
            error={fields['rd-url']}
            placeholder={tenant.mcpUrl}
            hint="Defaults to your tenant's MCP URL."
          />
          <Field
            id="rd-token"
            label="Access token (optional)"
            type="password"
            value={token}
            onInput={setToken}
            error={fields['rd-token']}
            hint="For a protected tenant, lets the MCP steps run past the 401. Never stored."
          />
        </div>
        {form && <ErrorBox error={form} title="Could not run the check" />}
        <div class="row">
          <button type="submit" class="primary" disabled={busy}>
            {busy ? 'Checking…' : 'Run readiness check'}
          </button>
          {busy && (
            <span class="loading inline" role="status">
              <span class="spinner" aria-hidden="true" /> Connecting like Claude and ChatGPT do; this takes a few seconds…
            </span>
          )}
        </div>
      </form>
      {report && (
        <div class="card" data-testid="readiness-report">
          <h2>
            Results for <span class="mono">{report.url}</span>
          </h2>
          <p data-testid="readiness-summary">
            <Badge tone="ok">{report.summary.pass} passed</Badge> <Badge tone="fail">{report.summary.fail} failed</Badge>{' '}
            <Badge tone="warn">{report.summary.warn} warnings</Badge>{' '}
            <Badge tone="muted">{report.summary.skip} skipped (not applicable)</Badge>{' '}
            <span class="muted small">
              ran <When at={report.ranAt} />
            </span>
          </p>
          <ul class="checks">
            {checks.map((c) => (
              <li key={c.id} class={`check-${c.status}`} data-testid={`check-${c.id}`} data-status={c.status}>
                <div class="check-head">
                  <Badge tone={TONE[c.status]}>{LABEL[c.status]}</Badge> <strong>{c.title}</strong>{' '}
                  <span class="muted small mono">{c.id}</span>
                </div>
                <p>{c.reason}</p>
                {c.fix && (
                  <p class="fix">
                    <strong>Fix:</strong> {c.fix}
                    <FixLink check={c} published={published} />
                    {c.explain && (
                      <>
                        {' '}
                        <a {...explainLink(c.explain)} data-testid={`explain-${c.id}`}>
                          Why not visible? →
                        </a>
                      </>
                    )}
                  </p>
                )}
              </li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}

/**
 * The fix's place in the console. A tool check failing one tool the tenant published opens that
 * tool's editor with focus on the field that fixes it; several open the tools needing attention.
 */
function FixLink({ check, published }: { check: ReadinessReport['checks'][number]; published: Map<string, string> }) {
  const at = FIX_AT[check.id];
  if (!at || (check.status !== 'fail' && check.status !== 'warn')) return null;
  const one = check.tools?.length === 1 ? check.tools[0]! : undefined;
  const source = one ? published.get(one.name) : undefined;
  const search = one && source ? `?${new URLSearchParams({ tool: source, field: one.field }).toString()}` : (at.search ?? '');
  return (
    <>
      {' '}
      <a {...linkTo(at.page, search)} data-testid={`fix-${check.id}`}>
        {one && source ? `Fix ${one.name} in Tools` : at.label} →
      </a>
    </>
  );
}

/** Readiness's explain address (`/console/tools?explain=…`) as an in-app link. */
function explainLink(href: string) {
  const at = href.indexOf('?');
  return linkTo('tools', at < 0 ? '' : href.slice(at));
}
