/**
 * Client capabilities discovery declares, and how a tool that only a capable client sees is
 * attributed to the capabilities it needs.
 *
 * Servers may register tools only for clients that declare a capability (the reference
 * `server-everything` registers its sampling, elicitation and roots tools that way). Discovery
 * declares every capability the gateway can relay so those tools are found, then lists tools
 * once without any capability: a tool present only in the first list is capability-gated.
 * When some are, it lists tools once per capability with everything declared except that
 * capability ("leave one out"): a gated tool missing from that list needs the capability. This
 * is bounded (at most {@link PROBED_CAPABILITIES}.length + 2 sessions per discovery) and finds
 * conjunctions (a tool needing sampling and tasks vanishes in both lists).
 */

/** The tasks extension's key under `capabilities.extensions` (2026-07-28, SEP-2663). */
const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** A capability a discovered tool can need; `elicitation.url` is URL-mode elicitation. */
export type ProbedCapability = 'sampling' | 'elicitation' | 'elicitation.url' | 'roots' | 'tasks';

/** Every capability probed, in the order a tool's requirements are recorded. */
export const PROBED_CAPABILITIES: readonly ProbedCapability[] = ['elicitation', 'elicitation.url', 'roots', 'sampling', 'tasks'];

/**
 * Everything discovery declares: sampling, elicitation in form and URL modes, roots, and the
 * tasks capability in both shapes (the 2025-11-25 `tasks` object a server checks before sending
 * task-augmented requests, and the 2026-07-28 extension).
 */
export function fullCapabilities(): Record<string, object> {
  return {
    sampling: {},
    elicitation: { form: {}, url: {} },
    roots: { listChanged: true },
    tasks: { list: {}, cancel: {}, requests: { sampling: { createMessage: {} }, elicitation: { create: {} } } },
    extensions: { [TASKS_EXTENSION]: {} },
  };
}

/** Everything except `left` (and what only makes sense with it). */
export function capabilitiesWithout(left: ProbedCapability): Record<string, object> {
  const caps = fullCapabilities();
  if (left === 'elicitation.url') caps.elicitation = { form: {} };
  else if (left === 'tasks') {
    delete caps.tasks;
    delete caps.extensions;
  } else delete caps[left];
  return caps;
}

/**
 * Per gated tool (listed with every capability, not without any), the capabilities whose
 * leave-one-out list lacks it. A tool no single left-out capability hides (it wants any one of
 * several) gets none: it cannot be attributed and stays ungated.
 */
export function attributeCapabilities(full: readonly string[], bare: readonly string[], without: ReadonlyMap<ProbedCapability, readonly string[]>): Map<string, ProbedCapability[]> {
  const plain = new Set(bare);
  const lists = new Map([...without].map(([cap, names]) => [cap, new Set(names)] as const));
  const out = new Map<string, ProbedCapability[]>();
  for (const name of full) {
    if (plain.has(name)) continue;
    const needs = PROBED_CAPABILITIES.filter((cap) => lists.get(cap)?.has(name) === false);
    if (needs.length > 0) out.set(name, needs);
  }
  return out;
}
