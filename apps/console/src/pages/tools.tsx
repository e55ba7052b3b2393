import { useState } from 'preact/hooks';
import { api, asApiError, type ApiError, type Item, type Publication, type Server } from '../api';
import { draftStore, type Draft, type DraftItem } from '../draft';
import { navigate } from '../router';
import { Badge, Empty, ErrorBox, Field, Spinner, splitError, useLoad } from '../ui';

interface ServerTools {
  server: Server;
  tools: Item[];
}

interface ToolsData {
  servers: ServerTools[];
  publications: Publication[];
}

async function loadTools(): Promise<ToolsData> {
  const [{ servers }, { publications }] = await Promise.all([api<{ servers: Server[] }>('GET', '/v1/servers'), api<{ publications: Publication[] }>('GET', '/v1/publications')]);
  const withItems = await Promise.all(
    servers.map(async (server) => {
      const { items } = await api<{ items: Item[] }>('GET', `/v1/servers/${encodeURIComponent(server.id)}/items`);
      return { server, tools: items.filter((i) => i.kind === 'tool') };
    }),
  );
  return { servers: withItems, publications };
}

/** Discovered vs published tools per server; title / description / name overrides; publish and unpublish. */
export function ToolsPage() {
  const data = useLoad(loadTools);
  return (
    <section aria-labelledby="tools-h">
      <h1 id="tools-h">Tools</h1>
      <p class="lead">Everything discovery found on your servers. Give each tool a clear title and description, then publish it: published tools are what Claude, ChatGPT and other clients see.</p>
      {data.error && <ErrorBox error={data.error} title="Could not load tools" retry={() => void data.reload()} />}
      {!data.data && data.loading && <Spinner label="Loading tools…" />}
      {data.data && data.data.servers.length === 0 && <Empty>No servers yet. Register one on the Servers page; its tools appear here after discovery.</Empty>}
      {data.data?.servers.map(({ server, tools }) => {
        const published = tools.filter((t) => t.exposedName !== null).length;
        return (
          <section key={server.id} class="card" aria-labelledby={`tools-${server.id}-h`} data-testid={`tools-server-${server.id}`}>
            <h2 id={`tools-${server.id}-h`}>
              {server.name} <span class="muted small">{server.id}</span>
            </h2>
            <p class="muted">
              {tools.length} discovered · {published} published
              {server.health === 'pending' && ' · discovery still running'}
            </p>
            {tools.length === 0 && (
              <Empty>{server.health === 'error' ? `Discovery failed: ${server.lastError ?? 'unknown error'}` : server.health === 'pending' ? 'Discovery is still running; check back in a moment.' : 'This server lists no tools.'}</Empty>
            )}
            {tools.map((t) => (
              <ToolRow
                key={t.name}
                server={server}
                tool={t}
                publication={data.data?.publications.find((p) => p.kind === 'tool' && p.serverId === server.id && p.upstreamName === t.name)}
                onChanged={() => data.reload()}
              />
            ))}
          </section>
        );
      })}
    </section>
  );
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function ToolRow({ server, tool, publication, onChanged }: { server: Server; tool: Item; publication: Publication | undefined; onChanged: () => Promise<void> }) {
  const idBase = `tool-${server.id}-${tool.name}`.replace(/[^A-Za-z0-9_-]/g, '_');
  const [title, setTitle] = useState(publication?.overrides.title ?? '');
  const [description, setDescription] = useState(publication?.overrides.description ?? '');
  const [exposed, setExposed] = useState(publication?.exposedName ?? '');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const [done, setDone] = useState('');
  const map = {
    'items.0.overrides.title': `${idBase}-title`,
    'items.0.overrides.description': `${idBase}-description`,
    'items.0.exposedName': `${idBase}-name`,
    'items.0.name': `${idBase}-name`,
  };
  const { fields, form } = splitError(error, map);
  const discoveredTitle = str(tool.definition.title) || str((tool.definition.annotations as Record<string, unknown> | undefined)?.title);

  /** The publication this form proposes (the body of both publish and the draft preview). */
  const proposal = (): Draft => {
    const item: DraftItem = { kind: 'tool', name: tool.name, overrides: {} };
    if (title.trim()) item.overrides.title = title.trim();
    if (description.trim()) item.overrides.description = description.trim();
    if (exposed.trim()) item.exposedName = exposed.trim();
    return { serverId: server.id, items: [item] };
  };

  /** Compiles the proposal first (bad names land beside their field here), then opens it on the Preview page. */
  const previewDraft = async () => {
    setBusy(true);
    setError(undefined);
    setDone('');
    try {
      const draft = proposal();
      await api('POST', '/v1/preview', draft);
      draftStore.set(draft);
      navigate('preview', '?draft');
    } catch (err) {
      setError(asApiError(err));
      setBusy(false);
    }
  };

  const publish = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    setDone('');
    try {
      const res = await api<{ items: Array<{ exposedName: string }> }>('POST', '/v1/publications', proposal());
      setDone(`Published as ${res.items[0]?.exposedName ?? tool.name}.`);
      await onChanged();
    } catch (err) {
      setError(asApiError(err));
    } finally {
      setBusy(false);
    }
  };

  const unpublish = async () => {
    setBusy(true);
    setError(undefined);
    setDone('');
    try {
      await api('POST', '/v1/publications/unpublish', { serverId: server.id, items: [{ kind: 'tool', name: tool.name }] });
      setDone('Unpublished.');
      await onChanged();
    } catch (err) {
      setError(asApiError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="tool" onSubmit={(e) => void publish(e)} noValidate data-testid={idBase} aria-labelledby={`${idBase}-h`}>
      <div class="tool-head">
        <h3 id={`${idBase}-h`} class="mono">
          {tool.name}
        </h3>
        {tool.removedAt ? (
          <Badge tone="fail">Removed upstream</Badge>
        ) : publication ? (
          <Badge tone="ok">Published as {publication.exposedName}</Badge>
        ) : (
          <Badge tone="muted">Not published</Badge>
        )}
        {tool.pendingReview && <Badge tone="warn">Changed upstream — awaiting review</Badge>}
      </div>
      <p class="muted small">
        Upstream: {discoveredTitle ? <>title “{discoveredTitle}”, </> : 'no title, '}
        {str(tool.definition.description) ? `“${str(tool.definition.description)}”` : 'no description'}
      </p>
      <div class="grid3">
        <Field id={`${idBase}-title`} label="Title" value={title} onInput={setTitle} error={fields[`${idBase}-title`]} placeholder={discoveredTitle || 'Human-readable title'} hint="Claude shows this (as annotations.title)." />
        <Field id={`${idBase}-name`} label="Exposed name" value={exposed} onInput={setExposed} error={fields[`${idBase}-name`]} placeholder={tool.name} hint="Leave empty to keep the upstream name." />
        <Field id={`${idBase}-description`} label="Description" value={description} onInput={setDescription} error={fields[`${idBase}-description`]} placeholder={str(tool.definition.description) || 'What the tool does'} multiline />
      </div>
      {form && <ErrorBox error={form} title="Could not publish" />}
      <div class="row">
        <button type="submit" class="primary" disabled={busy || tool.removedAt !== null}>
          {busy ? 'Working…' : publication ? 'Save and publish' : 'Publish'}
        </button>
        <button type="button" onClick={() => void previewDraft()} disabled={busy || tool.removedAt !== null}>
          Preview before publishing
        </button>
        {publication && (
          <button type="button" onClick={() => void unpublish()} disabled={busy}>
            Unpublish
          </button>
        )}
        <span role="status" aria-live="polite" class="ok-text">
          {done}
        </span>
      </div>
    </form>
  );
}
