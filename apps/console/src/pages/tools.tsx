import { useRef, useState } from 'preact/hooks';
import { api, asApiError, isRecord, type AnnotationOverrides, type ApiError, type Item, type Publication, type Server } from '../api';
import { draftStore, type Draft, type DraftItem } from '../draft';
import { notifyChanged } from '../events';
import { FormFooter, SubmitButton } from '../form-footer';
import { PatternNotice } from '../pattern-notice';
import { FindingsNotice } from '../findings-notice';
import { boolOf, HINTS, missingHints, REQUIRED_HINTS, triOf, upstreamAnnotations, type HintKey, type TriState } from '../hints';
import { linkTo, navigate } from '../router';
import { Badge, Empty, ErrorBox, Field, LoadStatus, SelectField, splitError, useFocusOnError, useLoad } from '../ui';
import { useCan } from '../role';
import { ToolScopes } from '../tool-scopes';
import type { TenantAuthView } from '../tenant-auth-view';

interface ServerTools {
  server: Server;
  tools: Item[];
  /** This server's items could not be loaded (the others still show). */
  error?: ApiError;
}

interface ToolsData {
  servers: ServerTools[];
  publications: Publication[];
  /** Per-tool scopes live in the tenant's auth settings (undefined: they could not be loaded; the tools still show). */
  auth?: TenantAuthView;
}

async function loadTools(): Promise<ToolsData> {
  const [{ servers }, { publications }, auth] = await Promise.all([
    api<{ servers: Server[] }>('GET', '/v1/servers'),
    api<{ publications: Publication[] }>('GET', '/v1/publications'),
    api<TenantAuthView>('GET', '/v1/tenant/auth').catch(() => undefined),
  ]);
  const withItems = await Promise.all(
    servers.map(async (server): Promise<ServerTools> => {
      try {
        const { items } = await api<{ items: Item[] }>('GET', `/v1/servers/${encodeURIComponent(server.id)}/items`);
        // A malformed definition must not take the page down: treat it as an empty one.
        const tools = items.filter((i) => i.kind === 'tool').map((i) => (isRecord(i.definition) ? i : { ...i, definition: {} }));
        return { server, tools };
      } catch (err) {
        return { server, tools: [], error: asApiError(err) };
      }
    }),
  );
  return { servers: withItems, publications, ...(auth ? { auth } : {}) };
}

/** Discovered vs published tools per server; title / description / name / annotation overrides and hints; publish and unpublish. */
export function ToolsPage() {
  const data = useLoad(loadTools);
  const needing = data.data ? data.data.servers.flatMap((s) => s.tools.filter((t) => !t.removedAt && missingHints(t.definition, publicationOf(data.data, s.server, t)?.overrides?.annotations, t.missingHints).length > 0)) : [];
  return (
    <section aria-labelledby="tools-h">
      <h1 id="tools-h">Tools</h1>
      <p class="lead">
        Everything discovery found on your servers. Give each tool a clear title and description, state how it behaves (read-only, destructive, open world), then publish it: published tools are what Claude, ChatGPT and other clients see.
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
      {needing.length > 0 && (
        <p class="notice" data-testid="hints-summary">
          {needing.length === 1 ? '1 tool needs' : `${needing.length} tools need`} behaviour hints before it can be published: clients use them to decide when to ask the user for confirmation. Each is marked below.
        </p>
      )}
      {data.data?.servers.map(({ server, tools, error }) => {
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
            {error && <ErrorBox error={error} title={`Could not load the tools of ${server.name}`} retry={() => void data.reload()} />}
            {!error && tools.length === 0 && (
              <Empty>{server.health === 'error' ? `Discovery failed: ${server.lastError ?? 'unknown error'}` : server.health === 'pending' ? 'Discovery is still running; check back in a moment.' : 'This server lists no tools.'}</Empty>
            )}
            {tools.map((t) => {
              const publication = publicationOf(data.data, server, t);
              const exposedName = publication?.exposedName ?? null;
              return (
                <div key={t.name}>
                  <ToolRow server={server} tool={t} publication={publication} onChanged={() => data.reload()} />
                  {!t.removedAt && <ToolScopes key={`${exposedName ?? ''}`} idBase={toolIdBase(server, t)} name={exposedName} auth={data.data?.auth} />}
                </div>
              );
            })}
          </section>
        );
      })}
    </section>
  );
}

function publicationOf(data: ToolsData | undefined, server: Server, t: Item): Publication | undefined {
  return data?.publications.find((p) => p.kind === 'tool' && p.serverId === server.id && p.upstreamName === t.name);
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function upstreamHintText(v: unknown): string {
  return typeof v === 'boolean' ? String(v) : 'not set';
}

function toolIdBase(server: Server, tool: Item): string {
  return `tool-${server.id}-${tool.name}`.replace(/[^A-Za-z0-9_-]/g, '_');
}

function ToolRow({ server, tool, publication, onChanged }: { server: Server; tool: Item; publication: Publication | undefined; onChanged: () => Promise<void> }) {
  const idBase = toolIdBase(server, tool);
  const saved = publication?.overrides ?? {};
  const [title, setTitle] = useState(saved.title ?? '');
  const [description, setDescription] = useState(saved.description ?? '');
  const [annTitle, setAnnTitle] = useState(saved.annotations?.title ?? '');
  const [hints, setHints] = useState<Record<HintKey, TriState>>(() => Object.fromEntries(HINTS.map((h) => [h.key, triOf(saved.annotations?.[h.key])])) as Record<HintKey, TriState>);
  const [exposed, setExposed] = useState(publication?.exposedName ?? '');
  const [busy, setBusy] = useState(false);
  const [acknowledged, setAcknowledged] = useState(false);
  const findings = tool.removedAt ? [] : (tool.findings ?? []);
  const canPublish = useCan('publisher');
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const [done, setDone] = useState('');
  // Controls changed since the last refusal: their old message no longer applies.
  const [touched, setTouched] = useState<ReadonlySet<string>>(new Set());
  const ref = useRef<HTMLFormElement>(null);
  useFocusOnError(ref, error);
  const fail = (err: unknown) => {
    setTouched(new Set());
    setError(asApiError(err));
  };

  const ids = { title: `${idBase}-title`, description: `${idBase}-description`, name: `${idBase}-name`, annTitle: `${idBase}-annotations-title` };
  const map: Record<string, string> = {
    'items.0.overrides.title': ids.title,
    'items.0.overrides.description': ids.description,
    'items.0.exposedName': ids.name,
    'items.0.name': ids.name,
    'items.0.overrides.annotations.title': ids.annTitle,
  };
  for (const h of HINTS) map[`items.0.overrides.annotations.${h.key}`] = `${idBase}-${h.key}`;
  const split = splitError(error, map);
  const fields = Object.fromEntries(Object.entries(split.fields).filter(([id]) => !touched.has(id)));
  const form = split.form;

  const upstream = upstreamAnnotations(tool.definition);
  const discoveredTitle = str(tool.definition.title) || str(upstream.title);
  const annotations = (): AnnotationOverrides => {
    const a: AnnotationOverrides = {};
    if (annTitle.trim()) a.title = annTitle.trim();
    for (const h of HINTS) {
      const v = boolOf(hints[h.key]);
      if (v !== undefined) a[h.key] = v;
    }
    return a;
  };
  const missing = missingHints(tool.definition, annotations(), tool.missingHints);

  /** The publication this form proposes (the body of both publish and the draft preview). */
  const proposal = (): Draft => {
    const item: DraftItem = { kind: 'tool', name: tool.name, overrides: {} };
    if (title.trim()) item.overrides.title = title.trim();
    if (description.trim()) item.overrides.description = description.trim();
    const a = annotations();
    if (Object.keys(a).length > 0) item.overrides.annotations = a;
    if (exposed.trim()) item.exposedName = exposed.trim();
    if (!publication && findings.length > 0) item.acknowledgeFindings = acknowledged;
    return { serverId: server.id, items: [item] };
  };

  /** Compiles the proposal first (bad names and missing hints land beside their field here), then opens it on the Preview page. */
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
      fail(err);
      setBusy(false);
    }
  };

  /** One change of the tool's publication: `change` answers the notice; every page then reloads. */
  const republish = async (change: () => Promise<string>) => {
    setBusy(true);
    setError(undefined);
    setDone('');
    try {
      setDone(await change());
      notifyChanged();
      await onChanged();
    } catch (err) {
      fail(err);
    } finally {
      setBusy(false);
    }
  };

  const publish = async (e: Event) => {
    e.preventDefault();
    await republish(async () => {
      const res = await api<{ items: Array<{ exposedName: string }> }>('POST', '/v1/publications', proposal());
      return `Published as ${res.items[0]?.exposedName ?? tool.name}.`;
    });
  };

  const unpublish = () =>
    republish(async () => {
      await api('POST', '/v1/publications/unpublish', { serverId: server.id, items: [{ kind: 'tool', name: tool.name }] });
      return 'Unpublished.';
    });

  const hintLabels = (keys: readonly string[]) => keys.map((k) => HINTS.find((h) => h.key === k)?.label ?? k).join(', ');

  return (
    <form ref={ref} class="tool" onSubmit={(e) => void publish(e)} noValidate data-testid={idBase} aria-labelledby={`${idBase}-h`}>
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
        {tool.pendingReview && (
          <a {...linkTo('review')} class="badge warn">
            Changed upstream — awaiting review
          </a>
        )}
        {!tool.removedAt && missing.length > 0 && (
          <span data-testid={`${idBase}-needs-hints`}>
            <Badge tone="warn">Needs hints: {hintLabels(missing)}</Badge>
          </span>
        )}
      </div>
      {!tool.removedAt && (tool.unsupportedPatterns ?? []).length > 0 && <PatternNotice patterns={tool.unsupportedPatterns ?? []} testId={`${idBase}-patterns`} />}
      {!publication && findings.length > 0 && <FindingsNotice findings={findings} testId={`${idBase}-findings`} acknowledged={acknowledged} onAcknowledge={setAcknowledged} />}
      <p class="muted small">
        Upstream: {discoveredTitle ? <>title “{discoveredTitle}”, </> : 'no title, '}
        {str(tool.definition.description) ? `“${str(tool.definition.description)}”` : 'no description'}
      </p>
      <div class="grid3">
        <Field id={ids.title} label="Title" value={title} onInput={setTitle} error={fields[ids.title]} placeholder={discoveredTitle || 'Human-readable title'} hint="Shown to people; Claude also receives it as annotations.title." />
        <Field id={ids.name} label="Exposed name" value={exposed} onInput={setExposed} error={fields[ids.name]} placeholder={tool.name} hint="Leave empty to keep the upstream name." />
        <Field
          id={ids.annTitle}
          label="Annotation title (annotations.title)"
          value={annTitle}
          onInput={setAnnTitle}
          error={fields[ids.annTitle]}
          placeholder={str(upstream.title) || 'Same as the title'}
          hint="For clients that read only annotations.title; leave empty to follow the title."
        />
      </div>
      <Field id={ids.description} label="Description" value={description} onInput={setDescription} error={fields[ids.description]} placeholder={str(tool.definition.description) || 'What the tool does'} multiline />
      <fieldset class="hints">
        <legend>Behaviour hints</legend>
        <div class="grid4">
          {HINTS.map((h) => {
            const required = REQUIRED_HINTS.includes(h.key);
            const id = `${idBase}-${h.key}`;
            return (
              <SelectField
                key={h.key}
                id={id}
                label={
                  <>
                    {h.label} <span class="mono small muted">{h.key}</span>
                  </>
                }
                value={hints[h.key]}
                onChange={(v) => {
                  setHints((cur) => ({ ...cur, [h.key]: v === 'true' || v === 'false' ? v : '' }));
                  setTouched((t) => new Set([...t, id]));
                }}
                options={[
                  { value: '', label: `Inherit upstream (${upstreamHintText(upstream[h.key])})` },
                  { value: 'true', label: 'Yes (true)' },
                  { value: 'false', label: 'No (false)' },
                ]}
                error={fields[id]}
                warning={required && missing.includes(h.key) && !tool.removedAt ? 'Required before publishing: choose Yes or No.' : undefined}
                hint={h.help}
              />
            );
          })}
        </div>
      </fieldset>
      {form && <ErrorBox error={form} title="Could not publish" />}
      {error && !form && (
        <p class="field-error" role="alert" data-testid={`${idBase}-error-summary`}>
          {error.code === 'HINTS_REQUIRED' ? 'Clients need to know how this tool behaves: choose Yes or No for each hint marked above, then try again.' : 'Fix the fields marked above, then try again.'}
        </p>
      )}
      <FormFooter notice={done} live>
        <SubmitButton busy={busy} disabled={tool.removedAt !== null} label={publication ? 'Save and publish' : 'Publish'} busyLabel="Working…" needed="publisher" what="publishing" />
        <button type="button" onClick={() => void previewDraft()} disabled={busy || tool.removedAt !== null}>
          Preview before publishing
        </button>
        {publication && canPublish && (
          <button type="button" onClick={() => void unpublish()} disabled={busy}>
            Unpublish
          </button>
        )}
      </FormFooter>
    </form>
  );
}
