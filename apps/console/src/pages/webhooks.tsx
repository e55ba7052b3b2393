import { useState } from 'preact/hooks';
import { api } from '../api';
import type { CreateWebhookResponse, GetWebhookResponse, ListWebhookDeliveriesResponse, ListWebhooksResponse } from '../api-types';
import { Allowed, useCan } from '../role';
import { Badge, CopyButton, DataTable, ErrorBox, Field, LoadStatus, useActions, useFormSubmit, useLoad, When } from '../ui';

type Delivery = ListWebhookDeliveriesResponse['deliveries'][number];

/** What each event means, in the words the form shows. */
const EVENT_LABELS: Record<string, string> = {
  'discovery.failed': 'Discovery failed',
  'upstream.change_pending_review': 'Upstream change awaiting review',
  'publish.done': 'Publish done',
  'connector.unlinked': 'Connector unlinked',
  'limit.reached': 'Limit reached',
};

const STATUS_TONE: Record<Delivery['status'], 'ok' | 'warn' | 'fail' | 'muted'> = {
  delivered: 'ok',
  queued: 'warn',
  pending: 'muted',
  failed: 'fail',
};

/** Event webhooks: subscribe endpoints, see the secret once, rotate it, send a test event, read the delivery log. */
export function WebhooksPage() {
  const hooks = useLoad(() => api<ListWebhooksResponse>('GET', '/v1/webhooks'));
  const actions = useActions(hooks.reload);
  const [secret, setSecret] = useState<{ id: string; secret: string } | undefined>(undefined);
  const [open, setOpen] = useState<string | undefined>(undefined);
  const canManage = useCan('admin');

  const rotate = (h: GetWebhookResponse) =>
    actions.run(async () => {
      const r = await api<CreateWebhookResponse>('POST', `/v1/webhooks/${h.id}/rotate`, {});
      setSecret({ id: h.id, secret: r.secret });
      return 'New secret created. Deliveries carry both signatures until the old secret expires.';
    });
  const test = (h: GetWebhookResponse) =>
    actions.run(async () => {
      await api('POST', `/v1/webhooks/${h.id}/test`);
      setOpen(h.id);
      return `Test event queued for ${h.url}.`;
    });
  const remove = (h: GetWebhookResponse) => {
    if (!confirm(`Delete the webhook to ${h.url}? Its delivery log goes too.`)) return;
    return actions.run(async () => {
      await api('DELETE', `/v1/webhooks/${h.id}`);
      return `Stopped sending events to ${h.url}.`;
    });
  };

  return (
    <section aria-labelledby="webhooks-h">
      <h1 id="webhooks-h">Webhooks</h1>
      <p class="lead">
        Send platform events to your own endpoints, signed with the Standard Webhooks headers (webhook-id, webhook-timestamp,
        webhook-signature).
      </p>
      <Allowed needed="admin" what="adding webhooks">
        <AddWebhookForm
          events={hooks.data?.events ?? []}
          onAdded={async (r) => {
            setSecret({ id: r.webhook.id, secret: r.secret });
            await hooks.reload();
          }}
        />
      </Allowed>
      {secret && (
        <div class="card" role="status" data-testid="webhook-secret">
          <p>
            Signing secret for <span class="mono">{secret.id}</span>. It is shown only now: store it with your receiver.
          </p>
          <p class="mono wrap" id="webhook-secret-value">
            {secret.secret}
          </p>
          <CopyButton text={secret.secret} label="Copy secret" targetId="webhook-secret-value" />
        </div>
      )}
      <h2>Subscriptions</h2>
      {actions.error && <ErrorBox error={actions.error} title="The action failed" />}
      {actions.notice && (
        <p class="ok-text" role="status">
          {actions.notice}
        </p>
      )}
      <LoadStatus
        load={hooks}
        errorTitle="Could not load the webhooks"
        loadingLabel="Loading webhooks…"
        empty="No webhooks yet."
        isEmpty={(d) => d.webhooks.length === 0}
      />
      {hooks.data && hooks.data.webhooks.length > 0 && (
        <DataTable testId="webhooks-table" columns={['Endpoint', 'Events', 'State', <span class="sr-only">Actions</span>]}>
          {hooks.data.webhooks.map((h) => (
            <tr key={h.id}>
              <td class="mono wrap">{h.url}</td>
              <td class="small">{h.events.map((e) => EVENT_LABELS[e] ?? e).join(', ')}</td>
              <td>
                {h.enabled ? <Badge tone="ok">Enabled</Badge> : <Badge tone="muted">Disabled</Badge>}{' '}
                {h.previousSecretExpiresAt && <Badge tone="info">Rotating</Badge>}
              </td>
              <td class="actions">
                <button type="button" onClick={() => setOpen(open === h.id ? undefined : h.id)} aria-expanded={open === h.id}>
                  Delivery log
                </button>
                {canManage && (
                  <>
                    <button type="button" onClick={() => void test(h)}>
                      Send test event
                    </button>
                    <button type="button" onClick={() => void rotate(h)}>
                      Rotate secret
                    </button>
                    <button type="button" class="danger" onClick={() => void remove(h)} aria-label={`Delete webhook ${h.url}`}>
                      Delete
                    </button>
                  </>
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      {open && <DeliveryLog id={open} />}
    </section>
  );
}

function DeliveryLog({ id }: { id: string }) {
  const log = useLoad(
    () => api<ListWebhookDeliveriesResponse>('GET', `/v1/webhooks/${id}/deliveries?limit=50`).then((r) => r.deliveries),
    [id],
  );
  return (
    <section aria-labelledby="deliveries-h">
      <h2 id="deliveries-h">Delivery log</h2>
      <div class="row">
        <button type="button" onClick={() => void log.reload()} disabled={log.loading}>
          {log.loading ? 'Refreshing…' : 'Refresh log'}
        </button>
      </div>
      <LoadStatus load={log} errorTitle="Could not load the delivery log" loadingLabel="Loading deliveries…" empty="Nothing sent yet." />
      {log.data && log.data.length > 0 && (
        <DataTable testId="deliveries-table" columns={['When', 'Event', 'Status', 'Attempts', 'Last answer', 'webhook-id']}>
          {log.data.map((d) => (
            <tr key={d.id}>
              <td>
                <When at={d.createdAt} />
              </td>
              <td class="mono">{d.eventType}</td>
              <td>
                <Badge tone={STATUS_TONE[d.status]}>{d.status}</Badge>
              </td>
              <td>{d.attempts}</td>
              <td class="small wrap">{d.lastError ?? (d.lastStatus !== null ? `HTTP ${d.lastStatus}` : '—')}</td>
              <td class="mono small">{d.id}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}

const IDS = { url: 'wh-url', events: 'wh-events' };

function AddWebhookForm({ events, onAdded }: { events: string[]; onAdded: (r: CreateWebhookResponse) => Promise<void> }) {
  const [url, setUrl] = useState('');
  const [chosen, setChosen] = useState<string[]>([]);
  const submitting = useFormSubmit({ url: IDS.url, events: IDS.events, 'events.0': IDS.events });
  const { ref, busy, fields } = submitting;
  const toggle = (e: string) => setChosen((c) => (c.includes(e) ? c.filter((x) => x !== e) : [...c, e]));

  const submit = async (ev: Event) => {
    ev.preventDefault();
    const errs: Record<string, string> = {};
    if (!url.trim()) errs[IDS.url] = 'Enter the endpoint URL.';
    if (chosen.length === 0) errs[IDS.events] = 'Choose at least one event.';
    await submitting.run(errs, async () => {
      const r = await api<CreateWebhookResponse>('POST', '/v1/webhooks', { url: url.trim(), events: chosen });
      setUrl('');
      setChosen([]);
      await onAdded(r);
    });
  };

  return (
    <form ref={ref} class="card" onSubmit={(e) => void submit(e)} noValidate aria-labelledby="add-webhook-h">
      <h2 id="add-webhook-h">Add a webhook</h2>
      <Field
        id={IDS.url}
        label="Endpoint URL"
        type="url"
        value={url}
        onInput={setUrl}
        error={fields[IDS.url]}
        placeholder="https://example.com/hooks/switchboard"
        autoComplete="off"
      />
      <fieldset id={IDS.events} tabIndex={-1} aria-describedby={fields[IDS.events] ? `${IDS.events}-error` : undefined}>
        <legend>Events</legend>
        {events.map((e) => (
          <label key={e} class="check">
            <input type="checkbox" checked={chosen.includes(e)} onChange={() => toggle(e)} /> {EVENT_LABELS[e] ?? e}{' '}
            <span class="mono small muted">{e}</span>
          </label>
        ))}
        {fields[IDS.events] && (
          <p class="field-error" id={`${IDS.events}-error`} data-testid={`${IDS.events}-error`}>
            {fields[IDS.events]}
          </p>
        )}
      </fieldset>
      {submitting.formError && <ErrorBox error={submitting.formError} title="Could not add the webhook" />}
      <div class="row">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Adding…' : 'Add webhook'}
        </button>
      </div>
    </form>
  );
}
