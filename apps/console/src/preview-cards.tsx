import type { Preview } from './api';
import { flatten } from './diff';

type Tool = Record<string, unknown>;

const str = (v: unknown) => (typeof v === 'string' ? v : '');
const rec = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/** A parameter as a client lists it: name, type, required, description. */
interface Param {
  name: string;
  type: string;
  required: boolean;
  description: string;
}

function paramsOf(tool: Tool): Param[] {
  const schema = rec(tool.inputSchema);
  const required = Array.isArray(schema.required) ? schema.required.filter((x): x is string => typeof x === 'string') : [];
  return Object.entries(rec(schema.properties)).map(([name, p]) => {
    const prop = rec(p);
    const type = Array.isArray(prop.type) ? prop.type.join(' | ') : str(prop.type) || (Array.isArray(prop.enum) ? 'one of a list' : 'any');
    return { name, type, required: required.includes(name), description: str(prop.description) };
  });
}

/**
 * Whether a client asks the user before running the tool, from its hints: clients treat a tool
 * that is not declared read-only as one that changes something, and a destructive one as worth
 * a warning. What each client does exactly is its own choice; this is what the hints ask for.
 */
function approval(tool: Tool): { text: string; tone: 'ok' | 'warn' | 'fail' } {
  const a = rec(tool.annotations);
  if (a.readOnlyHint === true) return { text: 'Read-only: can run without asking', tone: 'ok' };
  if (a.destructiveHint === false) return { text: 'Changes data: asks you to confirm', tone: 'warn' };
  return { text: 'May delete or overwrite: asks you to confirm', tone: 'fail' };
}

function Card({ client, tool }: { client: string; tool: Tool | undefined }) {
  if (!tool) {
    return (
      <div class="client-card absent">
        <p class="client-name">{client}</p>
        <p class="muted">Does not receive this tool.</p>
      </div>
    );
  }
  const title = str(tool.title) || str(rec(tool.annotations).title) || str(tool.name);
  const ask = approval(tool);
  const params = paramsOf(tool);
  return (
    <div class="client-card" data-client={client}>
      <p class="client-name">{client}</p>
      <p class="client-title">
        <strong>{title}</strong> <span class="mono small muted">{str(tool.name)}</span>
      </p>
      <p class="small">{str(tool.description) || <span class="muted">No description</span>}</p>
      <p class={`badge ${ask.tone}`}>{ask.text}</p>
      {params.length === 0 ? (
        <p class="muted small">No parameters.</p>
      ) : (
        <ul class="params">
          {params.map((p) => (
            <li key={p.name}>
              <span class="mono">{p.name}</span> <span class="muted small">{p.type}</span>
              {p.required && <span class="small"> · required</span>}
              {p.description && <div class="small muted">{p.description}</div>}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** One tool as Claude and ChatGPT present it to the person using them. */
export function ClientCards({ data, name }: { data: Preview; name: string }) {
  const find = (surface: string) => data.surfaces[surface]?.tools.find((t) => t.name === name);
  return (
    <div class="client-cards" data-testid={`cards-${name}`}>
      <Card client="Claude" tool={find('claude')} />
      <Card client="ChatGPT" tool={find('openai')} />
    </div>
  );
}

interface Change {
  name: string;
  kind: 'added' | 'removed' | 'changed';
  fields: Array<[string, string | undefined, string | undefined]>;
}

/** What publishing the draft would change, tool by tool, field by field (on the generic surface), before anything else. */
export function DraftChanges({ draft, live }: { draft: Preview; live: Preview }) {
  const surface = 'generic' in draft.surfaces ? 'generic' : Object.keys(draft.surfaces)[0];
  if (!surface) return null;
  const before = new Map((live.surfaces[surface]?.tools ?? []).map((t) => [String(t.name), flatten(t)]));
  const after = new Map((draft.surfaces[surface]?.tools ?? []).map((t) => [String(t.name), flatten(t)]));
  const names = [...new Set([...before.keys(), ...after.keys()])].sort();
  const changes = names.flatMap((name): Change[] => {
    const b = before.get(name);
    const a = after.get(name);
    if (!b) return [{ name, kind: 'added', fields: [] }];
    if (!a) return [{ name, kind: 'removed', fields: [] }];
    const paths = [...new Set([...b.keys(), ...a.keys()])].filter((p) => b.get(p) !== a.get(p));
    return paths.length
      ? [{ name, kind: 'changed', fields: paths.map((p): [string, string | undefined, string | undefined] => [p, b.get(p), a.get(p)]) }]
      : [];
  });
  return (
    <section class="card" aria-labelledby="draft-changes-h" data-testid="draft-changes">
      <h2 id="draft-changes-h">What this draft changes</h2>
      {changes.length === 0 ? (
        <p class="muted">Nothing: the gateway already serves exactly this.</p>
      ) : (
        <ul class="changes">
          {changes.map((c) => (
            <li key={c.name}>
              <span class="mono">{c.name}</span>{' '}
              {c.kind === 'added' ? (
                <span class="badge info">new tool</span>
              ) : c.kind === 'removed' ? (
                <span class="badge fail">no longer served</span>
              ) : null}
              {c.fields.length > 0 && (
                <table class="data compact">
                  <thead>
                    <tr>
                      <th scope="col">Field</th>
                      <th scope="col">Live now</th>
                      <th scope="col">After publishing</th>
                    </tr>
                  </thead>
                  <tbody>
                    {c.fields.map(([path, b, a]) => (
                      <tr key={path}>
                        <th scope="row" class="mono">
                          {path}
                        </th>
                        <td class="mono wrap">{b ?? '—'}</td>
                        <td class="mono wrap">{a ?? '—'}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** A schema cell's JSON, indented (a minified schema wraps mid-token). */
export function pretty(path: string, value: string): string {
  if (!/(^|\.)(inputSchema|outputSchema)$/.test(path)) return value;
  try {
    return JSON.stringify(JSON.parse(value), null, 2);
  } catch {
    return value;
  }
}
