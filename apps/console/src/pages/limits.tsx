import { useState } from 'preact/hooks';
import { api, asApiError, type ApiError } from '../api';
import { type LimitsView, type RatePlan, type RateSpec } from '../limits-api';
import { Allowed, useCan } from '../role';
import { ErrorBox, Field, LoadStatus, useLoad } from '../ui';
import { PlanSummary } from './usage';

interface Form {
  tenantRps: string;
  tenantBurst: string;
  subjectRps: string;
  subjectBurst: string;
  dailyCalls: string;
  /** One override per line: `<tool> <requests/s> <burst>`. */
  tools: string;
}

/** API field (without `body.`) → DOM id; tool overrides all land on the overrides box. */
const IDS: Record<string, string> = {
  'rate.tenant.requestsPerSecond': 'lim-tenant-rps',
  'rate.tenant.burst': 'lim-tenant-burst',
  'rate.subject.requestsPerSecond': 'lim-subject-rps',
  'rate.subject.burst': 'lim-subject-burst',
  'rate.dailyCalls': 'lim-daily',
};

function toForm(plan: RatePlan | null): Form {
  const s = (v: number | undefined) => (v === undefined ? '' : String(v));
  return {
    tenantRps: s(plan?.tenant?.requestsPerSecond),
    tenantBurst: s(plan?.tenant?.burst),
    subjectRps: s(plan?.subject?.requestsPerSecond),
    subjectBurst: s(plan?.subject?.burst),
    dailyCalls: s(plan?.dailyCalls),
    tools: Object.entries(plan?.tools ?? {})
      .map(([t, v]) => `${t} ${v.requestsPerSecond} ${v.burst}`)
      .join('\n'),
  };
}

/**
 * The plan as the API takes it. A number the user typed is sent as typed (a word becomes null)
 * so the registry's refusal — which names the field — is what the user sees beside it.
 */
function toPlan(f: Form): RatePlan | null {
  const num = (v: string) => (v.trim() === '' ? undefined : Number(v.trim()));
  const spec = (rps: string, burst: string): RateSpec | undefined => {
    const r = num(rps);
    const b = num(burst);
    return r === undefined && b === undefined ? undefined : ({ requestsPerSecond: r, burst: b } as RateSpec);
  };
  const plan: RatePlan = {};
  const tenant = spec(f.tenantRps, f.tenantBurst);
  const subject = spec(f.subjectRps, f.subjectBurst);
  if (tenant) plan.tenant = tenant;
  if (subject) plan.subject = subject;
  const daily = num(f.dailyCalls);
  if (daily !== undefined) plan.dailyCalls = daily;
  const lines = f.tools
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  if (lines.length > 0) {
    plan.tools = {};
    for (const line of lines) {
      const [tool, rps = '', burst = ''] = line.split(/\s+/);
      plan.tools[tool] = { requestsPerSecond: num(rps), burst: num(burst) } as RateSpec;
    }
  }
  return Object.keys(plan).length > 0 ? plan : null;
}

/** What an empty limit field means (the registry does not know the operator's numbers: the gateways hold them). */
const DEFAULT = "Operator's default";

/**
 * What is caught before sending, in words: a rate and its burst go together (both empty means the
 * operator's default), and each is a positive number.
 */
function localProblems(f: Form): Record<string, string> {
  const out: Record<string, string> = {};
  const pair = (rps: string, burst: string, rpsId: string, burstId: string) => {
    const [r, b] = [rps.trim(), burst.trim()];
    if (r && !b) out[burstId] = "Enter a burst too, or leave both empty for the operator's default.";
    if (b && !r) out[rpsId] = "Enter the requests per second too, or leave both empty for the operator's default.";
    if (r && !(Number(r) > 0)) out[rpsId] = 'Enter a number above 0, e.g. 50.';
    if (b && !(Number.isInteger(Number(b)) && Number(b) >= 1)) out[burstId] = 'Enter a whole number of at least 1, e.g. 100.';
  };
  pair(f.tenantRps, f.tenantBurst, 'lim-tenant-rps', 'lim-tenant-burst');
  pair(f.subjectRps, f.subjectBurst, 'lim-subject-rps', 'lim-subject-burst');
  const d = f.dailyCalls.trim();
  if (d && !(Number.isInteger(Number(d)) && Number(d) >= 0)) out['lim-daily'] = 'Enter a whole number of calls, e.g. 5000.';
  return out;
}

/** Field errors keyed by DOM id; `rate.tools.<tool>.<field>` lands on the overrides box naming the tool. */
function fieldErrors(err: ApiError | undefined): { fields: Record<string, string>; form: ApiError | undefined } {
  if (!err) return { fields: {}, form: undefined };
  const fields: Record<string, string> = {};
  for (const [f, m] of Object.entries(err.fieldErrors())) {
    const tool = /^rate\.tools\.(.+)$/.exec(f);
    const id = IDS[f] ?? (tool ? 'lim-tools' : f === 'rate.tools' ? 'lim-tools' : undefined);
    if (id) fields[id] ??= tool ? `${tool[1]}: ${m}` : m;
  }
  return { fields, form: Object.keys(fields).length > 0 ? undefined : err };
}

/** The tenant's rate plan (GET/PUT /v1/limits): requests/s and burst per tenant, per caller and per tool, and the daily quota. */
export function LimitsPage() {
  const limits = useLoad(() => api<LimitsView>('GET', '/v1/limits'));
  const canEdit = useCan('admin');
  return (
    <section aria-labelledby="limits-h">
      <h1 id="limits-h">Limits</h1>
      <p class="lead">
        How fast clients may call this workspace, shared across every gateway. Empty fields use the operator defaults; the gateways cap
        every value at the operator's ceilings.
      </p>
      <LoadStatus load={limits} errorTitle="Could not load the limits" loadingLabel="Loading limits…" />
      {limits.data &&
        (canEdit ? <LimitsForm initial={limits.data} onSaved={() => void limits.reload()} /> : <PlanSummary plan={limits.data.rate} />)}
      <Allowed needed="admin" what="changing the limits">
        {null}
      </Allowed>
    </section>
  );
}

function LimitsForm({ initial, onSaved }: { initial: LimitsView; onSaved: () => void }) {
  const [form, setForm] = useState<Form>(() => toForm(initial.rate));
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState<string | undefined>(undefined);
  const [local, setLocal] = useState<Record<string, string>>({});
  const api_ = fieldErrors(error);
  const fields = { ...api_.fields, ...local };
  const formError = api_.form;
  const set = (k: keyof Form) => (v: string) => {
    setForm({ ...form, [k]: v });
    // A message about a value no longer there goes as soon as the field is edited.
    setLocal({});
    setError(undefined);
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    setSaved(undefined);
    const mine = localProblems(form);
    setLocal(mine);
    if (Object.keys(mine).length > 0) return;
    setSaving(true);
    try {
      const r = await api<LimitsView & { pushed?: string }>('PUT', '/v1/limits', { rate: toPlan(form) });
      setError(undefined);
      setForm(toForm(r.rate));
      setSaved(r.pushed ? `Saved and sent to the gateways (${r.pushed}).` : 'Saved; it reaches the gateways with the first publish.');
      onSaved();
    } catch (err) {
      setError(asApiError(err));
    } finally {
      setSaving(false);
    }
  };
  return (
    <form onSubmit={(e) => void submit(e)} aria-label="Rate plan" noValidate>
      <h2>Tenant budget (all requests)</h2>
      <div class="grid2">
        <Field
          id="lim-tenant-rps"
          label="Requests per second"
          value={form.tenantRps}
          onInput={set('tenantRps')}
          error={fields['lim-tenant-rps']}
          inputMode="numeric"
          placeholder={DEFAULT}
        />
        <Field
          id="lim-tenant-burst"
          label="Burst"
          value={form.tenantBurst}
          onInput={set('tenantBurst')}
          error={fields['lim-tenant-burst']}
          inputMode="numeric"
          placeholder={DEFAULT}
        />
      </div>
      <h2>Per caller (each user, client or IP)</h2>
      <div class="grid2">
        <Field
          id="lim-subject-rps"
          label="Caller requests per second"
          value={form.subjectRps}
          onInput={set('subjectRps')}
          error={fields['lim-subject-rps']}
          inputMode="numeric"
          placeholder={DEFAULT}
        />
        <Field
          id="lim-subject-burst"
          label="Caller burst"
          value={form.subjectBurst}
          onInput={set('subjectBurst')}
          error={fields['lim-subject-burst']}
          inputMode="numeric"
          placeholder={DEFAULT}
        />
      </div>
      <Field
        id="lim-daily"
        label="Daily quota of tool calls"
        value={form.dailyCalls}
        onInput={set('dailyCalls')}
        error={fields['lim-daily']}
        inputMode="numeric"
        placeholder={DEFAULT}
        hint="Resets at 00:00 UTC. Empty: the operator's default."
      />
      <Field
        id="lim-tools"
        label="Per-tool overrides"
        value={form.tools}
        onInput={set('tools')}
        error={fields['lim-tools']}
        multiline
        rows={4}
        mono
        hint="One per line: tool requests-per-second burst (e.g. search 2 10)."
      />
      {formError && <ErrorBox error={formError} title="Could not save the limits" />}
      <div class="row">
        <button type="submit" disabled={saving}>
          {saving ? 'Saving…' : 'Save limits'}
        </button>
        {saved && (
          <span role="status" data-testid="limits-saved">
            {saved}
          </span>
        )}
      </div>
    </form>
  );
}
