// The tool set shared by the two baseline targets (sdk-server.mjs, raw-server.mjs): the 40
// fixture tools with the fixture's own `echo` (args `{message}`) replaced by the bench `echo`
// (args `{text}`), so both answer tools/list with the same 40 uniquely named tools. The gateway
// does the same for the bench tenant: its builtin demo `echo` wins over the fixture's one
// ("duplicate tool name; keeping the first"), plus the demo bundle's other tools.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Default fixture: the same 40-tool catalog the turn-1 anchor benchmark used (in-repo copy). */
export const DEFAULT_FIXTURE = fileURLToPath(new URL('../../config/fixtures/saas-40-tools.json', import.meta.url));

/** The in-process tool both workloads exercise with tools/call. */
export const ECHO_TOOL = Object.freeze({
  name: 'echo',
  title: 'Echo',
  description: 'Echo the given text back.',
  inputSchema: {
    type: 'object',
    properties: { text: { type: 'string', description: 'Text to echo back' } },
    required: ['text'],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
});

/** Fixture tools (raw JSON Schema declarations) except its `echo`, followed by the bench `echo`. */
export function loadBenchTools(fixturePath = DEFAULT_FIXTURE) {
  const parsed = JSON.parse(readFileSync(fixturePath, 'utf8'));
  if (!parsed || !Array.isArray(parsed.tools)) {
    throw new Error(`${fixturePath}: expected an object with a "tools" array`);
  }
  return [...parsed.tools.filter((t) => t.name !== ECHO_TOOL.name), ECHO_TOOL];
}

/**
 * A tools/call answered the way both SDK baselines answer it: `echo` echoes, a fixture tool gets a
 * stub (they are declarations only; the bench never calls them), an unknown name `undefined` (each
 * SDK row refuses it its own way).
 */
export function callBenchTool(toolNames, name, args) {
  if (name === ECHO_TOOL.name) {
    const text = typeof args?.text === 'string' ? args.text : '';
    return { content: [{ type: 'text', text }] };
  }
  if (!toolNames.has(name)) return undefined;
  return { content: [{ type: 'text', text: `stub result for ${name}` }] };
}
