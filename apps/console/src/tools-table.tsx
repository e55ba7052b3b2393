import type { ComponentChildren } from 'preact';
import type { Item, Publication, Server } from './api';
import { HINTS } from './hints';
import { linkTo } from './router';
import { toolIdBase } from './tool-editor';
import { predictNames, toolKey } from './tool-names';
import { needsAttention, publicationOf, toolProblems, toolStatus, type ToolProblem, type ToolsData, type ToolStatus } from './tools-data';
import { Badge } from './ui';

// The Tools page's table: one row per discovered tool, derived once per load, and the links that
// open a row's editor (with focus on the field that fixes a problem).

const STATUS_TEXT: Record<ToolStatus, [string, 'ok' | 'warn' | 'fail' | 'muted' | 'info']> = {
  published: ['Published', 'ok'],
  ready: ['Ready to publish', 'info'],
  'needs-attention': ['Needs hints', 'warn'],
  changed: ['Changed upstream', 'warn'],
  removed: ['Removed upstream', 'fail'],
};

/** One row of the table, derived once per load (filtering then only compares strings). */
export interface Row {
  key: string;
  server: Server;
  tool: Item;
  publication: Publication | undefined;
  status: ToolStatus;
  problems: ToolProblem[];
  attention: boolean;
  /** The name clients call (published) or would call if published now; undefined when only the registry can tell. */
  name: string | undefined;
  title: string;
  scopes: string[];
  haystack: string;
}

export function rowsOf(data: ToolsData): Row[] {
  const names = predictNames(data);
  const rows: Row[] = [];
  for (const { server, tools } of data.servers) {
    for (const tool of tools) {
      const publication = publicationOf(data.publications, server.id, tool.name);
      const key = toolKey(server.id, tool.name);
      const name = names.get(key);
      const title = publication?.overrides?.title ?? (typeof tool.definition.title === 'string' ? tool.definition.title : '');
      rows.push({
        key,
        server,
        tool,
        publication,
        status: toolStatus(tool, publication),
        problems: tool.removedAt ? [] : toolProblems(tool),
        attention: needsAttention(tool, publication),
        name,
        title,
        scopes: publication && data.auth ? (data.auth.toolScopes[publication.exposedName] ?? []) : [],
        haystack: `${tool.name} ${title} ${name ?? ''} ${server.id} ${server.name}`.toLowerCase(),
      });
    }
  }
  return rows;
}

export function matches(row: Row, filter: string, server: string, words: string[]): boolean {
  if (server && row.server.id !== server) return false;
  if (filter === 'attention' && !row.attention) return false;
  if (filter === 'ready' && row.status !== 'ready') return false;
  if (filter === 'published' && row.status !== 'published') return false;
  if (filter === 'removed' && row.status !== 'removed') return false;
  return words.every((w) => row.haystack.includes(w));
}

/** The Tools page's query with tool `id` open (and focus on `field`, else none), keeping the filters. */
function toolSearch(id: string, field?: string): string {
  const q = new URLSearchParams(location.search);
  q.set('tool', id);
  if (field) q.set('field', field);
  else q.delete('field');
  return `?${q.toString()}`;
}

const problemLabel = (p: ToolProblem) =>
  p.field === 'findings' ? 'poisoned-tool warnings' : (HINTS.find((h) => h.key === p.field)?.label ?? p.field);

/** A link that opens the tool's editor with focus on the field that fixes `problem` (the Drawer reads `field`). */
function FixLink({ id, problem, children }: { id: string; problem: ToolProblem; children: ComponentChildren }) {
  return (
    <a {...linkTo('tools', toolSearch(id, problem.field))} title={problem.message} data-testid={`fix-${problem.field}`}>
      {children}
    </a>
  );
}

export function ToolTable({ rows, open }: { rows: Row[]; open: string }) {
  if (rows.length === 0) return <p class="muted">No tool matches.</p>;
  return (
    <div class="table-wrap">
      <table class="data tools-table" data-testid="tools-table">
        <thead>
          <tr>
            <th scope="col">Tool</th>
            <th scope="col">Server</th>
            <th scope="col">Exposed name</th>
            <th scope="col">Status</th>
            <th scope="col">Hints</th>
            <th scope="col">Scopes</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => {
            const id = `${r.server.id}/${r.tool.name}`;
            const missing = r.problems.filter((x) => x.field !== 'title');
            const noTitle = r.problems.find((x) => x.field === 'title');
            const [label, tone] = STATUS_TEXT[r.status];
            const renamed = r.name !== undefined && r.name !== r.tool.name;
            return (
              <tr key={r.key} data-testid={`row-${toolIdBase(r.server, r.tool)}`} class={open === id ? 'open' : undefined}>
                <th scope="row">
                  {/* The name opens the editor: it stays clear of the drawer, which covers the right of the table. */}
                  <a {...linkTo('tools', toolSearch(id))} class="mono" aria-label={`Edit ${r.tool.name} (${r.server.name})`}>
                    {r.tool.name}
                  </a>
                  {r.title && <div class="muted small">{r.title}</div>}
                </th>
                <td class="mono small">{r.server.id}</td>
                <td class="mono small" data-testid={`name-${toolIdBase(r.server, r.tool)}`}>
                  {r.publication ? r.publication.exposedName : r.name ? <span class="muted">{r.name}</span> : '—'}
                  {!r.publication && renamed && <span class="badge warn">renamed: “{r.tool.name}” is taken</span>}
                </td>
                <td>
                  <Badge tone={tone}>{label}</Badge>
                </td>
                <td class="small">
                  {r.tool.removedAt ? (
                    '—'
                  ) : missing.length > 0 ? (
                    <span class="warn-text">
                      Missing:{' '}
                      {missing.map((x, i) => (
                        <span key={x.field}>
                          {i > 0 && ', '}
                          <FixLink id={id} problem={x}>
                            {problemLabel(x)}
                          </FixLink>
                        </span>
                      ))}
                    </span>
                  ) : (
                    'All set'
                  )}
                  {noTitle && !r.tool.removedAt && (
                    <div class="muted">
                      <FixLink id={id} problem={noTitle}>
                        No title
                      </FixLink>
                    </div>
                  )}
                </td>
                <td class="mono small">{r.scopes.length ? r.scopes.join(' ') : <span class="muted">—</span>}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
