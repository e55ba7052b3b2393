import { useState } from 'preact/hooks';
import { api } from '../api';
import type { GetGuardrailsResponse, GetToolScanResponse } from '../api-types';
import { resend, type Shown } from '../guardrails-draft';
import { InterceptorForm } from '../guardrails-form';
import { Allowed, useCan } from '../role';
import { Badge, DataTable, ErrorBox, LoadStatus, useActions, useLoad } from '../ui';

/** What an interceptor runs, in a few words. */
function runs(i: Shown): string {
  if ('webhook' in i.use) return `Webhook ${i.use.webhook.url}`;
  if (i.use.builtin === 'pii') return `PII redaction (${i.use.kinds?.join(', ') ?? 'all kinds'})`;
  return `CEL: ${i.use.rules.map((r) => r.name).join(', ')}`;
}

function scope(i: Shown): string {
  const tools = i.match?.tools?.join(', ') ?? 'all tools';
  const servers = i.match?.servers ? ` on ${i.match.servers.join(', ')}` : '';
  return `${i.hook.events.join(', ')} · ${i.hook.phase} · ${tools}${servers}`;
}

/**
 * The tenant's guardrails: the interceptor chain (GET/PUT /v1/guardrails), in the order it runs,
 * and the poisoned-tool setting (PUT /v1/guardrails/tool-scan). Changes reach the gateways at once.
 */
export function GuardrailsPage() {
  const chain = useLoad(() => api<GetGuardrailsResponse>('GET', '/v1/guardrails'));
  const actions = useActions(chain.reload);
  const [editing, setEditing] = useState<number | undefined>(undefined);
  const canEdit = useCan('admin');
  const list = chain.data?.interceptors ?? [];
  const saveOrder = (next: Shown[], done: string) =>
    actions.run(async () => {
      await api('PUT', '/v1/guardrails', { interceptors: next.map(resend) });
      setEditing(undefined);
      return done;
    });
  const move = (n: number, by: -1 | 1) => {
    const next = [...list];
    [next[n], next[n + by]] = [next[n + by]!, next[n]!];
    return saveOrder(next, `Moved ${list[n]!.name} ${by < 0 ? 'up' : 'down'}.`);
  };
  return (
    <section aria-labelledby="guardrails-h">
      <h1 id="guardrails-h">Guardrails</h1>
      <p class="lead">
        Interceptors check and rewrite tool calls and results on every gateway, in this order. Audit mode records what would have happened
        without changing anything.
      </p>
      <ToolScan />
      <h2>Interceptors</h2>
      {actions.error && <ErrorBox error={actions.error} title="The change failed" />}
      {actions.notice && (
        <p class="ok-text" role="status" data-testid="guardrails-notice">
          {actions.notice}
        </p>
      )}
      <LoadStatus
        load={chain}
        errorTitle="Could not load the guardrails"
        loadingLabel="Loading guardrails…"
        empty="No interceptors: calls pass through unchanged."
        isEmpty={(d) => d.interceptors.length === 0}
      />
      {list.length > 0 && (
        <DataTable testId="interceptors-table" columns={['#', 'Name', 'Runs', 'Applies to', 'Mode', <span class="sr-only">Actions</span>]}>
          {list.map((i, n) => (
            <tr key={i.name} data-testid={`interceptor-${i.name}`}>
              <td>{n + 1}</td>
              <td class="mono">{i.name}</td>
              <td class="small wrap">{runs(i)}</td>
              <td class="small wrap">{scope(i)}</td>
              <td>
                {i.mode === 'enforce' ? <Badge tone="ok">Enforce</Badge> : <Badge tone="info">Audit</Badge>}{' '}
                {i.failOpen && <Badge tone="warn">Fails open</Badge>}
              </td>
              <td class="actions">
                {canEdit && (
                  <>
                    <button type="button" onClick={() => setEditing(n)} aria-label={`Edit ${i.name}`}>
                      Edit
                    </button>
                    <button type="button" disabled={n === 0} onClick={() => void move(n, -1)} aria-label={`Move ${i.name} up`}>
                      Up
                    </button>
                    <button
                      type="button"
                      disabled={n === list.length - 1}
                      onClick={() => void move(n, 1)}
                      aria-label={`Move ${i.name} down`}
                    >
                      Down
                    </button>
                    <button
                      type="button"
                      class="danger"
                      onClick={() =>
                        void saveOrder(
                          list.filter((_, k) => k !== n),
                          `Removed ${i.name}.`,
                        )
                      }
                      aria-label={`Remove ${i.name}`}
                    >
                      Remove
                    </button>
                  </>
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <Allowed needed="admin" what="changing the guardrails">
        {chain.data && editing === undefined && (
          <div class="row">
            <button type="button" class="primary" onClick={() => setEditing(list.length)}>
              Add interceptor
            </button>
          </div>
        )}
        {chain.data && editing !== undefined && (
          <InterceptorForm
            key={editing}
            chain={list}
            index={editing}
            onCancel={() => setEditing(undefined)}
            onSaved={(r) => {
              actions.setNotice(
                `Saved ${r.interceptors[editing]?.name ?? 'the interceptor'}${r.pushed ? ' and sent it to the gateways' : '; it reaches the gateways with the first publish'}.`,
              );
              setEditing(undefined);
              void chain.reload();
            }}
          />
        )}
      </Allowed>
    </section>
  );
}

/** The poisoned-tool setting: refuse publishing items with a high-severity finding. */
function ToolScan() {
  const scan = useLoad(() => api<GetToolScanResponse>('GET', '/v1/guardrails/tool-scan'));
  const actions = useActions(scan.reload);
  const canEdit = useCan('admin');
  const on = scan.data?.blockPoisoned ?? false;
  return (
    <div class="card" data-testid="tool-scan">
      <h2>Poisoned-tool scan</h2>
      <label class="check">
        <input
          type="checkbox"
          checked={on}
          disabled={!canEdit || !scan.data}
          onChange={() => void actions.run(async () => void (await api('PUT', '/v1/guardrails/tool-scan', { blockPoisoned: !on })))}
        />{' '}
        Refuse publishing tools with a high-severity finding (hidden instructions, exfiltration requests), even acknowledged
      </label>
      {actions.error && <ErrorBox error={actions.error} title="Could not change the setting" />}
    </div>
  );
}
