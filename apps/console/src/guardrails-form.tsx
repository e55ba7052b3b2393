import { useEffect, useState } from 'preact/hooks';
import { api } from './api';
import type { CheckGuardrailsResponse, GetGuardrailsResponse } from './api-types';
import { domId, EVENTS, idMap, PII_KINDS, resend, toDraft, toSent, type Draft, type Rule, type Runs, type Shown } from './guardrails-draft';
import { ErrorBox, Field, SelectField, useFormSubmit } from './ui';

/**
 * Adds or edits one interceptor of the chain (`index` = its place; the chain's length to add).
 * Saving PUTs the whole chain; while a CEL rule is typed, the chain is checked (POST
 * /v1/guardrails/check) and each rule's problem shows beside it, with the position CEL gives.
 */
export function InterceptorForm(props: {
  chain: Shown[];
  index: number;
  onSaved: (r: GetGuardrailsResponse) => void;
  onCancel: () => void;
}) {
  const { chain, index } = props;
  const [d, setD] = useState<Draft>(() => toDraft(chain[index]));
  const submitting = useFormSubmit(idMap(index, d.rules.length));
  const { ref, busy, fields } = submitting;
  const [live, setLive] = useState<Record<string, string>>({});
  const set =
    <K extends keyof Draft>(k: K) =>
    (v: Draft[K]) =>
      setD((cur) => ({ ...cur, [k]: v }));
  const candidate = () => {
    const all = chain.map(resend);
    all[index] = toSent(d);
    return { interceptors: all };
  };
  const rulesKey = JSON.stringify(d.runs === 'cel' ? d.rules : []);
  useEffect(() => {
    if (d.runs !== 'cel' || d.rules.every((r) => !r.expr)) return setLive({});
    const timer = setTimeout(() => {
      api<CheckGuardrailsResponse>('POST', '/v1/guardrails/check', candidate()).then(
        (r) =>
          setLive(
            Object.fromEntries(
              r.issues
                .filter((i) => i.field.startsWith(`body.interceptors.${index}.use.rules.`))
                .map((i) => [domId(i.field.replace(`body.interceptors.${index}.`, '')), i.message.replace(`${i.field}: `, '')]),
            ),
          ),
        () => setLive({}),
      );
    }, 400);
    return () => clearTimeout(timer);
  }, [rulesKey]);
  const submit = async (e: Event) => {
    e.preventDefault();
    const errs: Record<string, string> = {};
    if (!d.name.trim()) errs[domId('name')] = 'Enter a name.';
    if (d.events.length === 0) errs[domId('hook.events')] = 'Choose at least one event.';
    await submitting.run(errs, async () => props.onSaved(await api<GetGuardrailsResponse>('PUT', '/v1/guardrails', candidate())));
  };
  const toggle = (k: 'events' | 'kinds', v: string) => set(k)(d[k].includes(v) ? d[k].filter((x) => x !== v) : [...d[k], v]);
  const rule = (r: number, k: keyof Rule) => (v: string) => set('rules')(d.rules.map((x, i) => (i === r ? { ...x, [k]: v } : x)));
  const err = (f: string) => fields[domId(f)] ?? live[domId(f)];
  return (
    <form ref={ref} class="card" onSubmit={(e) => void submit(e)} noValidate aria-labelledby="gr-form-h" data-testid="interceptor-form">
      <h2 id="gr-form-h">{chain[index] ? `Edit ${chain[index].name}` : 'Add an interceptor'}</h2>
      <div class="grid2">
        <Field
          id={domId('name')}
          label="Name"
          value={d.name}
          onInput={set('name')}
          error={err('name')}
          hint="Shown to callers in a denial."
        />
        <SelectField
          id={domId('runs')}
          label="Runs"
          value={d.runs}
          onChange={(v) => set('runs')(v as Runs)}
          options={[
            { value: 'cel', label: 'CEL rules' },
            { value: 'pii', label: 'PII and secret redaction' },
            { value: 'webhook', label: 'Webhook' },
          ]}
        />
        <SelectField
          id={domId('type')}
          label="Type"
          value={d.type}
          onChange={(v) => set('type')(v as Draft['type'])}
          error={err('type')}
          options={[
            { value: 'validation', label: 'Validation (allow or deny)' },
            { value: 'mutation', label: 'Mutation (rewrite)' },
          ]}
        />
        <SelectField
          id={domId('hook.phase')}
          label="Phase"
          value={d.phase}
          onChange={(v) => set('phase')(v as Draft['phase'])}
          error={err('hook.phase')}
          options={[
            { value: 'request', label: 'Request (tools/call arguments)' },
            { value: 'response', label: 'Response (results)' },
            { value: 'both', label: 'Both' },
          ]}
        />
        <SelectField
          id={domId('mode')}
          label="Mode"
          value={d.mode}
          onChange={(v) => set('mode')(v as Draft['mode'])}
          error={err('mode')}
          options={[
            { value: 'enforce', label: 'Enforce' },
            { value: 'audit', label: 'Audit (record only)' },
          ]}
        />
        <Field
          id={domId('match.tools')}
          label="Tools (empty = all)"
          value={d.tools}
          onInput={set('tools')}
          error={err('match.tools')}
          hint="Exposed names, comma-separated; * matches any run of characters."
        />
        <Field
          id={domId('match.servers')}
          label="Servers (empty = all)"
          value={d.servers}
          onInput={set('servers')}
          error={err('match.servers')}
        />
      </div>
      <fieldset id={domId('hook.events')} tabIndex={-1} aria-describedby={err('hook.events') ? `${domId('hook.events')}-error` : undefined}>
        <legend>Events</legend>
        {EVENTS.map((ev) => (
          <label key={ev} class="check">
            <input type="checkbox" checked={d.events.includes(ev)} onChange={() => toggle('events', ev)} /> <span class="mono">{ev}</span>
          </label>
        ))}
        {err('hook.events') && (
          <p class="field-error" id={`${domId('hook.events')}-error`}>
            {err('hook.events')}
          </p>
        )}
      </fieldset>
      <label class="check">
        <input type="checkbox" checked={d.failOpen} onChange={() => set('failOpen')(!d.failOpen)} /> Fail open: let the call through when
        this interceptor fails or times out
      </label>
      {d.runs === 'pii' && (
        <fieldset>
          <legend>Redact (none ticked = all)</legend>
          {PII_KINDS.map((k) => (
            <label key={k} class="check">
              <input type="checkbox" checked={d.kinds.includes(k)} onChange={() => toggle('kinds', k)} /> {k}
            </label>
          ))}
          <Field
            id={domId('use.nationalIds')}
            label="National-id shapes"
            value={d.nationalIds}
            onInput={set('nationalIds')}
            error={err('use.nationalIds') ?? err('use.nationalIds.0.pattern')}
            multiline
            mono
            hint="One per line: name pattern (RE2, e.g. ssn \d{3}-\d{2}-\d{4})."
          />
        </fieldset>
      )}
      {d.runs === 'cel' && (
        <fieldset>
          <legend>Rules (a rule that is true denies the call)</legend>
          {d.rules.map((r, i) => (
            <div key={i} class="card compact" data-testid={`gr-rule-${i}`}>
              <div class="grid2">
                <Field
                  id={domId(`use.rules.${i}.name`)}
                  label={`Rule ${i + 1} name`}
                  value={r.name}
                  onInput={rule(i, 'name')}
                  error={err(`use.rules.${i}.name`)}
                />
                <Field
                  id={domId(`use.rules.${i}.message`)}
                  label={`Rule ${i + 1} message`}
                  value={r.message}
                  onInput={rule(i, 'message')}
                  error={err(`use.rules.${i}.message`)}
                />
              </div>
              <Field
                id={domId(`use.rules.${i}.expr`)}
                label={`Rule ${i + 1} expression`}
                value={r.expr}
                onInput={rule(i, 'expr')}
                error={err(`use.rules.${i}.expr`)}
                mono
                multiline
                rows={2}
                hint='Over caller, tool, args and now, e.g. tool.name == "refund" && args.amount > 500'
              />
            </div>
          ))}
          <button type="button" onClick={() => set('rules')([...d.rules, { name: '', expr: '', message: '' }])}>
            Add rule
          </button>
        </fieldset>
      )}
      {d.runs === 'webhook' && (
        <div class="grid2">
          <Field
            id={domId('use.webhook.url')}
            label="Webhook URL"
            type="url"
            value={d.url}
            onInput={set('url')}
            error={err('use.webhook.url')}
            placeholder="https://guard.example.com/intercept"
          />
          <Field
            id={domId('use.webhook.secret')}
            label="Signing secret"
            type="password"
            value={d.secret}
            onInput={set('secret')}
            error={err('use.webhook.secret')}
            hint={d.secretSet ? 'A secret is stored; leave empty to keep it.' : 'whsec_ followed by base64.'}
          />
          <Field
            id={domId('use.webhook.timeoutMs')}
            label="Timeout (ms)"
            value={d.timeoutMs}
            onInput={set('timeoutMs')}
            error={err('use.webhook.timeoutMs')}
            inputMode="numeric"
          />
          <Field
            id={domId('use.webhook.maxBytes')}
            label="Largest answer (bytes)"
            value={d.maxBytes}
            onInput={set('maxBytes')}
            error={err('use.webhook.maxBytes')}
            inputMode="numeric"
          />
        </div>
      )}
      {submitting.formError && <ErrorBox error={submitting.formError} title="Could not save the interceptor" />}
      <div class="row">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Saving…' : 'Save interceptor'}
        </button>
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
