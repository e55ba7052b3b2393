import { useRef, useState } from 'preact/hooks';
import { api, asApiError, type AnnotationOverrides, type ApiError, type Item, type Publication, type Server } from './api';
import { draftStore, type Draft, type DraftItem } from './draft';
import { notifyChanged } from './events';
import { FormFooter, SubmitButton } from './form-footer';
import { PatternNotice } from './pattern-notice';
import { FindingsNotice } from './findings-notice';
import { boolOf, HINTS, missingHints, REQUIRED_HINTS, triOf, upstreamAnnotations, type HintKey, type TriState } from './hints';
import { linkTo, navigate } from './router';
import { Badge, ErrorBox, Field, SelectField, splitError, useEditedFields, useFocusOnError } from './ui';
import { useCan } from './role';

// The editor of one tool's publication (title, description, exposed name, hints): the Tools table opens it in a drawer.

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function upstreamHintText(v: unknown): string {
  return typeof v === 'boolean' ? String(v) : 'not set';
}

export function toolIdBase(server: Server, tool: Item): string {
  return `tool-${server.id}-${tool.name}`.replace(/[^A-Za-z0-9_-]/g, '_');
}

export function ToolRow({
  server,
  tool,
  publication,
  onChanged,
  predicted,
}: {
  server: Server;
  tool: Item;
  publication: Publication | undefined;
  onChanged: () => Promise<void>;
  predicted?: string | undefined;
}) {
  const idBase = toolIdBase(server, tool);
  const saved = publication?.overrides ?? {};
  const [title, setTitle] = useState(saved.title ?? '');
  const [description, setDescription] = useState(saved.description ?? '');
  const [annTitle, setAnnTitle] = useState(saved.annotations?.title ?? '');
  const [hints, setHints] = useState<Record<HintKey, TriState>>(
    () => Object.fromEntries(HINTS.map((h) => [h.key, triOf(saved.annotations?.[h.key])])) as Record<HintKey, TriState>,
  );
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
  useEditedFields(ref, setTouched);
  const fail = (err: unknown) => {
    setTouched(new Set());
    setError(asApiError(err));
  };

  const ids = {
    title: `${idBase}-title`,
    description: `${idBase}-description`,
    name: `${idBase}-name`,
    annTitle: `${idBase}-annotations-title`,
  };
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
      {!tool.removedAt && (tool.unsupportedPatterns ?? []).length > 0 && (
        <PatternNotice patterns={tool.unsupportedPatterns ?? []} testId={`${idBase}-patterns`} />
      )}
      {!publication && findings.length > 0 && (
        <FindingsNotice findings={findings} testId={`${idBase}-findings`} acknowledged={acknowledged} onAcknowledge={setAcknowledged} />
      )}
      <p class="muted small">
        Upstream: {discoveredTitle ? <>title “{discoveredTitle}”, </> : 'no title, '}
        {str(tool.definition.description) ? `“${str(tool.definition.description)}”` : 'no description'}
      </p>
      <div class="grid3">
        <Field
          id={ids.title}
          label="Title"
          value={title}
          onInput={setTitle}
          error={fields[ids.title]}
          placeholder={discoveredTitle || 'Human-readable title'}
          hint="Shown to people; Claude also receives it as annotations.title."
          warning={
            !tool.removedAt && !title.trim() && !annTitle.trim() && !discoveredTitle
              ? 'No title: the Readiness check fails published tools without one.'
              : undefined
          }
        />
        <Field
          id={ids.name}
          label="Exposed name"
          value={exposed}
          onInput={setExposed}
          error={fields[ids.name]}
          placeholder={publication?.exposedName ?? predicted ?? tool.name}
          hint={
            publication
              ? `Clients call it ${publication.exposedName}. A new name replaces that one.`
              : predicted && predicted !== tool.name
                ? `“${tool.name}” is taken in this tenant: left empty, it is published as “${predicted}”. Enter a name to choose another.`
                : 'Leave empty to keep the upstream name.'
          }
        />
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
      <Field
        id={ids.description}
        label="Description"
        value={description}
        onInput={setDescription}
        error={fields[ids.description]}
        placeholder={str(tool.definition.description) || 'What the tool does'}
        multiline
      />
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
                warning={
                  required && missing.includes(h.key) && !tool.removedAt ? 'Required before publishing: choose Yes or No.' : undefined
                }
                hint={h.help}
              />
            );
          })}
        </div>
      </fieldset>
      {form && <ErrorBox error={form} title="Could not publish" />}
      {error && !form && (
        <p class="field-error" role="alert" data-testid={`${idBase}-error-summary`}>
          {error.code === 'HINTS_REQUIRED'
            ? 'Clients need to know how this tool behaves: choose Yes or No for each hint marked above, then try again.'
            : 'Fix the fields marked above, then try again.'}
        </p>
      )}
      <FormFooter notice={done} live>
        <SubmitButton
          busy={busy}
          disabled={tool.removedAt !== null}
          label={publication ? 'Save and publish' : 'Publish'}
          busyLabel="Working…"
          needed="publisher"
          what="publishing"
        />
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
