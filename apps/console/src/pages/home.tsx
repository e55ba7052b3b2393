import { api, type AuditEntry, type Change, type Tenant } from '../api';
import type { ListCallsResponse } from '../api-types';
import { ReachabilityBanner } from '../reachability';
import { linkTo, type PageId } from '../router';
import { loadTools, needsAttention, publicationOf, toolStatus, type ToolsData } from '../tools-data';
import { Badge, LoadStatus, useLoad, When } from '../ui';

/** What the checklist is computed from: the tenant's servers, tools, publications, held changes, calls and last readiness run. */
interface HomeState {
  tools: ToolsData;
  changes: number;
  calls: number;
  readiness: AuditEntry | undefined;
  lastPublish: AuditEntry | undefined;
}

async function loadHome(): Promise<HomeState> {
  const [tools, changes, calls, readiness, lastPublish] = await Promise.all([
    loadTools(false),
    api<{ changes: Change[] }>('GET', '/v1/changes')
      .then((r) => r.changes.length)
      .catch(() => 0),
    api<ListCallsResponse>('GET', '/v1/calls?limit=1')
      .then((r) => r.calls.length)
      .catch(() => 0),
    api<{ entries: AuditEntry[] }>('GET', '/v1/audit?action=readiness.run&limit=1').then((r) => r.entries[0]),
    api<{ entries: AuditEntry[] }>('GET', '/v1/audit?action=snapshot.publish&limit=1').then((r) => r.entries[0]),
  ]);
  return { tools, changes, calls, readiness, lastPublish };
}

interface Step {
  id: 'register' | 'review' | 'publish' | 'connect' | 'readiness';
  title: string;
  done: boolean;
  /** What the state is now, in a sentence. */
  detail: string;
  action: { label: string; page: PageId; search?: string };
}

/** The five steps from a URL to a tool a hosted client uses, each computed from the tenant's state. */
export function checklist(s: HomeState): Step[] {
  const servers = s.tools.servers;
  const tools = servers.flatMap(({ server, tools }) =>
    tools.map((t) => {
      const pub = publicationOf(s.tools.publications, server.id, t.name);
      return { server, tool: t, status: toolStatus(t, pub), attention: needsAttention(t, pub) };
    }),
  );
  const live = tools.filter((t) => t.status === 'published').length;
  const ready = tools.filter((t) => t.status === 'ready').length;
  const attention = tools.filter((t) => t.attention).length;
  const summary =
    s.readiness?.details && typeof s.readiness.details === 'object'
      ? (s.readiness.details as { summary?: { fail?: number; pass?: number } }).summary
      : undefined;
  const readinessCurrent =
    s.readiness !== undefined && (s.lastPublish === undefined || Date.parse(s.readiness.at) >= Date.parse(s.lastPublish.at));
  const firstServer = servers[0]?.server.id;
  return [
    {
      id: 'register',
      title: 'Register your MCP server',
      done: servers.length > 0,
      detail:
        servers.length === 0
          ? 'Paste the URL of your MCP server; Switchboard discovers its tools.'
          : `${servers.length} server${servers.length === 1 ? '' : 's'} registered.`,
      action: { label: servers.length === 0 ? 'Register a server' : 'Open Servers', page: 'servers' },
    },
    {
      id: 'review',
      title: 'Review its tools',
      done: tools.length > 0 && attention === 0,
      detail:
        tools.length === 0
          ? 'No tools discovered yet.'
          : attention > 0
            ? `${attention} of ${tools.length} tool${tools.length === 1 ? '' : 's'} need${attention === 1 ? 's' : ''} attention (behaviour hints, a title, or an upstream change).`
            : `All ${tools.length} tools have what publishing needs.`,
      action: {
        label: 'Review tools',
        page: 'tools',
        search: attention > 0 ? '?filter=attention' : firstServer ? `?server=${encodeURIComponent(firstServer)}` : '',
      },
    },
    {
      id: 'publish',
      title: 'Publish them',
      done: live > 0,
      detail:
        live > 0
          ? `${live} tool${live === 1 ? ' is' : 's are'} live${ready > 0 ? `; ${ready} more ready to publish` : ''}.`
          : ready > 0
            ? `${ready} tool${ready === 1 ? ' is' : 's are'} ready to publish.`
            : 'Nothing is published yet.',
      action: { label: 'Publish tools', page: 'tools', search: ready > 0 ? '?filter=ready' : '' },
    },
    {
      id: 'connect',
      title: 'Connect a client',
      done: s.calls > 0,
      detail:
        s.calls > 0
          ? 'A client has called your tools through the gateway.'
          : 'No client has called through the gateway yet: add your MCP URL to Claude or ChatGPT.',
      action: { label: 'Connect a client', page: 'connect' },
    },
    {
      id: 'readiness',
      title: 'Pass the readiness check',
      done: readinessCurrent && summary?.fail === 0,
      detail: !s.readiness
        ? 'Not run yet: it replays what Claude and ChatGPT do when they connect.'
        : !readinessCurrent
          ? 'You published since the last check: run it again.'
          : summary?.fail
            ? `The last check failed ${summary.fail} step${summary.fail === 1 ? '' : 's'}.`
            : 'The last check passed.',
      action: { label: s.readiness ? 'Run it again' : 'Run the check', page: 'readiness' },
    },
  ];
}

/** The landing page: where the tenant stands on the way from a URL to live tools, and the next step. */
export function HomePage({ tenant }: { tenant: Tenant }) {
  const load = useLoad(loadHome);
  const steps = load.data ? checklist(load.data) : [];
  const next = steps.find((s) => !s.done);
  const done = steps.filter((s) => s.done).length;
  return (
    <section aria-labelledby="home-h">
      <h1 id="home-h">Home</h1>
      <p class="lead">
        From your MCP server's URL to tools Claude and ChatGPT can use. Your MCP URL is <span class="mono wrap">{tenant.mcpUrl}</span>.
      </p>
      <ReachabilityBanner url={tenant.mcpUrl} />
      <LoadStatus load={load} errorTitle="Could not load your tenant's state" loadingLabel="Loading…" />
      {load.data && (
        <div class="card">
          <h2 id="checklist-h">
            Get started{' '}
            <span class="muted small">
              {done} of {steps.length} done
            </span>
          </h2>
          <ol class="checklist" aria-labelledby="checklist-h" data-testid="checklist">
            {steps.map((s) => (
              <li
                key={s.id}
                class={s.done ? 'step done' : s === next ? 'step next' : 'step'}
                data-testid={`step-${s.id}`}
                data-done={String(s.done)}
                aria-current={s === next ? 'step' : undefined}
              >
                <span class="step-mark" aria-hidden="true">
                  {s.done ? '✓' : ''}
                </span>
                <div>
                  <strong>{s.title}</strong>{' '}
                  {s.done ? (
                    <Badge tone="ok">Done</Badge>
                  ) : s === next ? (
                    <Badge tone="info">Next</Badge>
                  ) : (
                    <Badge tone="muted">To do</Badge>
                  )}
                  <p class="muted small">{s.detail}</p>
                </div>
                {(!s.done || s === next) && (
                  <a class={s === next ? 'button primary' : 'button'} {...linkTo(s.action.page, s.action.search ?? '')}>
                    {s.action.label}
                  </a>
                )}
              </li>
            ))}
          </ol>
          {load.data.readiness && (
            <p class="muted small">
              Last readiness check <When at={load.data.readiness.at} />.
            </p>
          )}
        </div>
      )}
    </section>
  );
}
