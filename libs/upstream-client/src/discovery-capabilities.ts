/**
 * Servers may register tools only for clients that declare a capability (the reference
 * `server-everything` registers its sampling, elicitation and roots tools that way), so
 * discovery declares every capability the gateway can relay, and probes with one left out to
 * learn which tools need it ({@link probeCapabilityRequirements}).
 */

/** The tasks extension's key under `capabilities.extensions` (2026-07-28, SEP-2663). */
const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** A capability a discovered tool can need; `elicitation.url` is URL-mode elicitation. */
export type ProbedCapability = 'sampling' | 'elicitation' | 'elicitation.url' | 'roots' | 'tasks';

/** Every capability probed, in the order a tool's requirements are recorded. */
export const PROBED_CAPABILITIES: readonly ProbedCapability[] = ['elicitation', 'elicitation.url', 'roots', 'sampling', 'tasks'];

/**
 * What discovery declares: sampling, elicitation in form and URL modes, roots, and the tasks
 * capability in both shapes (the 2025-11-25 `tasks` object a server checks before sending
 * task-augmented requests, and the 2026-07-28 extension) — or all of it except `without`
 * (and what only makes sense with it). A fresh object on every call.
 */
export function discoveryCapabilities(without?: ProbedCapability): Record<string, object> {
  const caps: Record<string, object> = {
    sampling: {},
    elicitation: { form: {}, url: {} },
    roots: { listChanged: true },
    tasks: { list: {}, cancel: {}, requests: { sampling: { createMessage: {} }, elicitation: { create: {} } } },
    extensions: { [TASKS_EXTENSION]: {} },
  };
  if (without === 'elicitation.url') caps.elicitation = { form: {} };
  else if (without === 'tasks') {
    delete caps.tasks;
    delete caps.extensions;
  } else if (without !== undefined) delete caps[without];
  return caps;
}
