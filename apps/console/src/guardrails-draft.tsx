import type { GetGuardrailsResponse, PutGuardrailsBody } from './api-types';

// The Guardrails editor's model: an interceptor as the form holds it (strings as typed) and as
// the API takes it back, and the API field ↔ DOM id mapping of its errors.

export type Shown = GetGuardrailsResponse['interceptors'][number];
export type Sent = PutGuardrailsBody['interceptors'][number];

export const EVENTS = ['tools/call', 'prompts/get', 'resources/read'] as const;
export const PII_KINDS = ['email', 'phone', 'card', 'iban', 'nationalId', 'jwt', 'bearer', 'apiKey'] as const;
export type Runs = 'pii' | 'cel' | 'webhook';
export interface Rule {
  name: string;
  expr: string;
  message: string;
}

/** The editor's state of one interceptor: strings as typed, so the API's refusal is what shows beside a field. */
export interface Draft {
  name: string;
  type: 'validation' | 'mutation';
  events: string[];
  phase: 'request' | 'response' | 'both';
  servers: string;
  tools: string;
  mode: 'enforce' | 'audit';
  failOpen: boolean;
  runs: Runs;
  kinds: string[];
  nationalIds: string;
  rules: Rule[];
  url: string;
  timeoutMs: string;
  maxBytes: string;
  secret: string;
  secretSet: boolean;
}

const list = (s: string) => s.split(/[\s,]+/).filter(Boolean);

export function toDraft(i: Shown | undefined): Draft {
  const use = i?.use;
  const hook = use && 'webhook' in use ? use.webhook : undefined;
  return {
    name: i?.name ?? '',
    type: i?.type ?? 'validation',
    events: i?.hook.events ?? ['tools/call'],
    phase: i?.hook.phase ?? 'request',
    servers: (i?.match?.servers ?? []).join(', '),
    tools: (i?.match?.tools ?? []).join(', '),
    mode: i?.mode ?? 'enforce',
    failOpen: i?.failOpen ?? false,
    runs: !use ? 'cel' : 'webhook' in use ? 'webhook' : use.builtin,
    kinds: use && 'builtin' in use && use.builtin === 'pii' ? (use.kinds ?? []) : [],
    nationalIds:
      use && 'builtin' in use && use.builtin === 'pii' ? (use.nationalIds ?? []).map((n) => `${n.name} ${n.pattern}`).join('\n') : '',
    rules: use && 'builtin' in use && use.builtin === 'cel' ? use.rules.map((r) => ({ ...r })) : [{ name: '', expr: '', message: '' }],
    url: hook?.url ?? '',
    timeoutMs: String(hook?.timeoutMs ?? 2000),
    maxBytes: String(hook?.maxBytes ?? 65536),
    secret: '',
    secretSet: hook?.secretSet ?? false,
  };
}

export function toSent(d: Draft): Sent {
  const match = {
    ...(list(d.servers).length ? { servers: list(d.servers) } : {}),
    ...(list(d.tools).length ? { tools: list(d.tools) } : {}),
  };
  const base = {
    name: d.name.trim(),
    type: d.type,
    hook: { events: d.events, phase: d.phase },
    mode: d.mode,
    failOpen: d.failOpen,
    ...(Object.keys(match).length ? { match } : {}),
  };
  if (d.runs === 'webhook') {
    const webhook = {
      url: d.url.trim(),
      timeoutMs: Number(d.timeoutMs),
      maxBytes: Number(d.maxBytes),
      ...(d.secret ? { secret: d.secret } : {}),
    };
    return { ...base, use: { webhook } } as Sent;
  }
  if (d.runs === 'pii') {
    const nationalIds = d.nationalIds
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
      .map((l) => ({ name: l.split(/\s+/)[0] ?? '', pattern: l.split(/\s+/).slice(1).join(' ') }));
    return {
      ...base,
      use: { builtin: 'pii', ...(d.kinds.length ? { kinds: d.kinds } : {}), ...(nationalIds.length ? { nationalIds } : {}) },
    } as Sent;
  }
  return { ...base, use: { builtin: 'cel', rules: d.rules } } as Sent;
}

/** An interceptor the API showed, as a PUT sends it back (webhook secret left out: the stored one is kept). */
export function resend(i: Shown): Sent {
  if (!('webhook' in i.use)) return i as Sent;
  const { url, timeoutMs, maxBytes } = i.use.webhook;
  return { ...i, use: { webhook: { url, timeoutMs, maxBytes } } } as Sent;
}

/** DOM id of an API field inside the edited interceptor: `use.rules.1.expr` → `gr-use-rules-1-expr`. */
export const domId = (f: string) => `gr-${f.replace(/\./g, '-')}`;
const FIELDS = [
  'name',
  'type',
  'hook.events',
  'hook.phase',
  'match.servers',
  'match.tools',
  'mode',
  'use.kinds',
  'use.nationalIds',
  'use.webhook.url',
  'use.webhook.timeoutMs',
  'use.webhook.maxBytes',
  'use.webhook.secret',
];

/** API field (relative to `interceptors.<index>.`) → DOM id, for every field the form shows (rules by index). */
export function idMap(index: number, rules: number): Record<string, string> {
  const map: Record<string, string> = {};
  const add = (f: string, id = domId(f)) => (map[`interceptors.${index}.${f}`] = id);
  for (const f of FIELDS) add(f);
  add('use.nationalIds', domId('use.nationalIds'));
  for (let r = 0; r < rules; r++) for (const k of ['name', 'expr', 'message']) add(`use.rules.${r}.${k}`);
  return map;
}
