import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ExplainPanel, type ExplainAsk } from '../explain-panel';
import { PublishReady } from '../publish-ready';
import { linkTo, navigate, useSearch } from '../router';
import { toolIdBase, ToolRow } from '../tool-editor';
import { ToolScopes } from '../tool-scopes';
import { loadTools, type ToolsData } from '../tools-data';
import { matches, rowsOf, ToolTable, type Row } from '../tools-table';
import { ErrorBox, LoadStatus, useLoad } from '../ui';

/** Rows rendered at once: the rest come with "Show more" (a 1,000-tool tenant stays quick to filter). */
const PAGE_ROWS = 200;

const FILTERS = [
  { value: '', label: 'All tools' },
  { value: 'attention', label: 'Needs attention' },
  { value: 'ready', label: 'Ready to publish' },
  { value: 'published', label: 'Published' },
  { value: 'removed', label: 'Removed upstream' },
] as const;

/** The address bar's query as the table's state: ?server=…&filter=…&tool=<server>/<tool>. */
function useQuery(): URLSearchParams {
  const search = useSearch();
  return useMemo(() => new URLSearchParams(search), [search]);
}

function setQuery(q: URLSearchParams, changes: Record<string, string | undefined>): void {
  const next = new URLSearchParams(q);
  for (const [k, v] of Object.entries(changes)) {
    if (v) next.set(k, v);
    else next.delete(k);
  }
  const s = next.toString();
  navigate('tools', s ? `?${s}` : '');
}

/** The address's `?explain=<name>&surface=<id>`, or undefined when it asks for no explanation. */
function explainAsk(q: URLSearchParams): ExplainAsk | undefined {
  const tool = q.get('explain');
  return tool === null ? undefined : { tool, surface: q.get('surface') || 'claude' };
}

/** Every discovered tool in one table: search, filters, an editor drawer per row, and "publish all ready" per server. */
export function ToolsPage() {
  const data = useLoad(() => loadTools());
  const query = useQuery();
  const filter = query.get('filter') ?? '';
  const server = query.get('server') ?? '';
  const open = query.get('tool') ?? '';
  const [text, setText] = useState(query.get('q') ?? '');
  const [shown, setShown] = useState(PAGE_ROWS);
  const [publishing, setPublishing] = useState<string | undefined>(undefined);
  const [notice, setNotice] = useState('');
  const rows = useMemo(() => (data.data ? rowsOf(data.data) : []), [data.data]);
  const words = text.toLowerCase().split(/\s+/).filter(Boolean);
  const visible = useMemo(() => rows.filter((r) => matches(r, filter, server, words)), [rows, filter, server, text]);
  useEffect(() => setShown(PAGE_ROWS), [filter, server, text]);
  const attention = rows.filter((r) => r.attention).length;
  const openRow = rows.find((r) => `${r.server.id}/${r.tool.name}` === open);

  return (
    <section aria-labelledby="tools-h">
      <h1 id="tools-h">Tools</h1>
      <p class="lead">
        Everything discovery found on your servers. Give each tool a title and behaviour hints, then publish it: published tools are what
        Claude, ChatGPT and other clients see.
      </p>
      <LoadStatus
        load={data}
        errorTitle="Could not load tools"
        loadingLabel="Loading tools…"
        isEmpty={(d) => d.servers.length === 0}
        empty={
          <>
            No servers yet. <a {...linkTo('servers')}>Register one on the Servers page</a>; its tools appear here after discovery.
          </>
        }
      />
      {attention > 0 && (
        <p class="notice" data-testid="hints-summary">
          {attention === 1 ? '1 tool needs' : `${attention} tools need`} attention: behaviour hints clients use to decide when to ask for
          confirmation, a title, or an upstream change to review.{' '}
          <a {...linkTo('tools', '?filter=attention')}>Show {attention === 1 ? 'it' : 'them'}</a>
        </p>
      )}
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      {data.data && data.data.servers.length > 0 && (
        <ServerStrip
          data={data.data}
          rows={rows}
          selected={server}
          publishing={publishing}
          setPublishing={setPublishing}
          reload={data.reload}
          setNotice={setNotice}
        />
      )}
      {rows.length > 0 && (
        <>
          <div class="row filters" role="search" aria-label="Filter tools">
            <label for="tools-search">
              Search
              <input
                id="tools-search"
                type="search"
                value={text}
                placeholder="Name, title or server"
                onInput={(e) => setText(e.currentTarget.value)}
              />
            </label>
            <label for="tools-filter">
              Show
              <select
                id="tools-filter"
                value={filter}
                onChange={(e) => setQuery(query, { filter: e.currentTarget.value, tool: undefined })}
              >
                {FILTERS.map((f) => (
                  <option key={f.value} value={f.value}>
                    {f.label}
                  </option>
                ))}
              </select>
            </label>
            <label for="tools-server">
              Server
              <select
                id="tools-server"
                value={server}
                onChange={(e) => setQuery(query, { server: e.currentTarget.value, tool: undefined })}
              >
                <option value="">All servers</option>
                {data.data?.servers.map((s) => (
                  <option key={s.server.id} value={s.server.id}>
                    {s.server.name}
                  </option>
                ))}
              </select>
            </label>
            <span class="muted small" role="status" data-testid="tools-count">
              {visible.length === rows.length
                ? `${rows.length} tool${rows.length === 1 ? '' : 's'}`
                : `${visible.length} of ${rows.length} tool${rows.length === 1 ? '' : 's'}`}
            </span>
          </div>
          <ToolTable rows={visible.slice(0, shown)} open={open} />
          {visible.length > shown && (
            <button type="button" onClick={() => setShown(shown + PAGE_ROWS)}>
              Show {Math.min(PAGE_ROWS, visible.length - shown)} more of {visible.length - shown}
            </button>
          )}
        </>
      )}
      {openRow && (
        <Drawer
          row={openRow}
          data={data.data}
          onClose={() => setQuery(query, { tool: undefined, field: undefined })}
          onChanged={data.reload}
        />
      )}
      {data.data && <ExplainPanel ask={explainAsk(query)} />}
    </section>
  );
}

function ServerStrip(props: {
  data: ToolsData;
  rows: Row[];
  selected: string;
  publishing: string | undefined;
  setPublishing: (id: string | undefined) => void;
  reload: () => Promise<void>;
  setNotice: (n: string) => void;
}) {
  return (
    <ul class="server-strip" aria-label="Servers">
      {props.data.servers.map(({ server, tools, error }) => {
        const mine = props.rows.filter((r) => r.server.id === server.id);
        const ready = mine.filter((r) => r.status === 'ready');
        const published = mine.filter((r) => r.status === 'published').length;
        return (
          <li
            key={server.id}
            class={`card compact${props.selected === server.id ? ' selected' : ''}`}
            data-testid={`tools-server-${server.id}`}
          >
            <div class="row">
              <strong>{server.name}</strong> <span class="muted small mono">{server.id}</span>
              <span class="muted small">
                {tools.length} discovered · {published} published{server.health === 'pending' && ' · discovery still running'}
                {server.health === 'error' && ` · discovery failed: ${server.lastError ?? 'unknown error'}`}
              </span>
              {ready.length > 0 && (
                <button
                  type="button"
                  onClick={() => props.setPublishing(props.publishing === server.id ? undefined : server.id)}
                  aria-expanded={props.publishing === server.id}
                >
                  Publish all ready ({ready.length})
                </button>
              )}
            </div>
            {error && <ErrorBox error={error} title={`Could not load the tools of ${server.name}`} retry={() => void props.reload()} />}
            {props.publishing === server.id && (
              <PublishReady
                server={server}
                tools={ready.map((r) => r.tool)}
                onClose={() => props.setPublishing(undefined)}
                onDone={async (message) => {
                  await props.reload();
                  props.setPublishing(undefined);
                  props.setNotice(message);
                }}
              />
            )}
          </li>
        );
      })}
    </ul>
  );
}

/** The editor of one tool, beside the table: focus moves into it on open and Escape closes it. */
function Drawer({
  row,
  data,
  onClose,
  onChanged,
}: {
  row: Row;
  data: ToolsData | undefined;
  onClose: () => void;
  onChanged: () => Promise<void>;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  const field = useQuery().get('field');
  useEffect(() => {
    // A fix link names the field to fix: focus lands on it, else on the heading.
    const base = toolIdBase(row.server, row.tool);
    const target =
      field === 'findings'
        ? document.querySelector<HTMLElement>(`[data-testid="${base}-findings-ack"]`)
        : field
          ? document.getElementById(`${base}-${field}`)
          : null;
    (target ?? heading.current)?.focus();
  }, [row.key, field]);
  useEffect(() => {
    const on = (e: KeyboardEvent) => e.key === 'Escape' && onClose();
    addEventListener('keydown', on);
    return () => removeEventListener('keydown', on);
  }, []);
  const exposedName = row.publication?.exposedName ?? null;
  const query = useQuery();
  return (
    <aside class="drawer" aria-labelledby="drawer-h" data-testid="tool-drawer">
      <div class="drawer-head">
        <h2 id="drawer-h" tabIndex={-1} ref={heading}>
          <span class="mono">{row.tool.name}</span> <span class="muted small">on {row.server.name}</span>
        </h2>
        <button type="button" onClick={() => setQuery(query, { explain: exposedName ?? row.tool.name })}>
          Why not visible?
        </button>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
      <ToolRow key={row.key} server={row.server} tool={row.tool} publication={row.publication} onChanged={onChanged} predicted={row.name} />
      {!row.tool.removedAt && (
        <ToolScopes
          key={`${row.key}-${exposedName ?? ''}`}
          idBase={toolIdBase(row.server, row.tool)}
          name={exposedName}
          auth={data?.auth}
        />
      )}
    </aside>
  );
}
