import { api } from './api';
import type { GetGuardrailsResponse, ListPublicationsResponse } from './api-types';
import type { Shown } from './guardrails-draft';
import { linkTo } from './router';
import { useLoad } from './ui';

/** A selector glob as the gateways match it: `*` any run, `?` one character, the rest literal. */
function globMatch(glob: string, text: string): boolean {
  let g = 0;
  let t = 0;
  let star = -1;
  let mark = 0;
  while (t < text.length) {
    if (g < glob.length && (glob[g] === '?' || glob[g] === text[t])) {
      g++;
      t++;
    } else if (g < glob.length && glob[g] === '*') {
      star = g++;
      mark = t;
    } else if (star !== -1) {
      g = star + 1;
      t = ++mark;
    } else return false;
  }
  while (g < glob.length && glob[g] === '*') g++;
  return g === glob.length;
}

const matches = (globs: string[] | undefined, text: string | undefined) =>
  !globs || globs.length === 0 || (text !== undefined && globs.some((g) => globMatch(g, text)));

/**
 * The interceptors a tool's calls go through, by exposed name (the live chain and publications:
 * a draft's new tools match by name only). Empty until both have loaded, or when none apply.
 */
export function useAppliedGuardrails(): (tool: string) => Shown[] {
  const load = useLoad(async () => {
    const [chain, pubs] = await Promise.all([
      api<GetGuardrailsResponse>('GET', '/v1/guardrails'),
      api<ListPublicationsResponse>('GET', '/v1/publications'),
    ]);
    return {
      chain: chain.interceptors,
      servers: new Map(pubs.publications.filter((p) => p.kind === 'tool').map((p) => [p.exposedName, p.serverId])),
    };
  });
  return (tool) => {
    if (!load.data) return [];
    const server = load.data.servers.get(tool);
    return load.data.chain.filter(
      (i) => i.hook.events.includes('tools/call') && matches(i.match?.tools, tool) && matches(i.match?.servers, server),
    );
  };
}

/** One line under a tool in the preview: which interceptors run on its calls, in order. */
export function GuardrailsLine({ name, applied }: { name: string; applied: Shown[] }) {
  if (applied.length === 0) return null;
  return (
    <p class="small" data-testid={`preview-${name}-guardrails`}>
      <a {...linkTo('guardrails')}>Guardrails</a>:{' '}
      {applied.map((i) => `${i.name} (${i.type}, ${i.hook.phase}${i.mode === 'audit' ? ', audit' : ''})`).join(' → ')}
    </p>
  );
}
