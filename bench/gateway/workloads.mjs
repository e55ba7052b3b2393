// bench/gateway's tenants and workloads: the tenants file the gateway serves, the requests each
// workload sends to which target, and the preflight capture whose bytes every load response must equal.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const FIXTURE = path.join(ROOT, 'config', 'fixtures', 'saas-40-tools.json');
const FIXTURE_TOOL_NAMES = JSON.parse(readFileSync(FIXTURE, 'utf8')).tools.map((t) => t.name);

export const AUTH_TENANT = 'bench-auth';

// Issue 46's `guarded` row: the proxy tenant with PII redaction on tool results and three CEL
// rules on tool arguments (none of them denies the bench's echo, so the bytes stay the gateway's).
const GUARDRAILS_YAML = `    guardrails:
      interceptors:
        - { name: redact, type: mutation, hook: { events: [tools/call], phase: response }, use: { builtin: pii } }
        - name: policy
          type: validation
          hook: { events: [tools/call], phase: request }
          use:
            builtin: cel
            rules:
              - { name: big-refunds, message: refunds over 500 need finance, expr: 'tool.name == "refund" && has(args.amount) && args.amount > 500 && !("finance" in caller.groups)' }
              - { name: few-args, message: too many arguments, expr: 'tool.server == "up" && size(args) > 16' }
              - { name: short-text, message: text too long, expr: '"text" in args && string(args.text).size() > 4096' }
`;

export function tenantsYaml(upstreamUrl, guarded = false) {
  const benchCatalogs = `    catalogs:
      # Only the demo echo: the fixture's own \`echo\` is then dropped as a duplicate, so the
      # gateway lists the fixture's 40 names like the SDK baselines.
      - builtin: demo
        tools: [echo]
      - fixture: ${FIXTURE}
`;
  return `# Written by bench/gateway/run.mjs; deleted at the end of the run.
tenants:
  - id: bench
    name: Bench tenant
${benchCatalogs}  - id: ${AUTH_TENANT}
    name: Bench tenant behind a bearer
    auth:
      protected: true
      scopes: [mcp:tools]
${benchCatalogs}  - id: proxy
    name: Bench tenant proxying to an SDK-built upstream
    catalogs:
      - upstream: { id: up, url: ${upstreamUrl}, stateful: true }
${guarded ? GUARDRAILS_YAML : ''}`;
}

// ---------------------------------------------------------------------------------------------
// Workloads. `targets` maps a target id to the MCP path it is measured on (absent = not run).
// ---------------------------------------------------------------------------------------------
export const LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
export const ECHO = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hello' } } };
const WORKLOADS = [
  {
    id: 'tools/list',
    request: LIST,
    kind: 'list',
    targets: { gateway: '/t/bench/mcp', limited: '/t/bench/mcp', raw: '/mcp', sdk1: '/mcp', sdk2: '/mcp' },
  },
  // Right after tools/list: the bearer ratio compares two cells measured back to back.
  { id: 'list + bearer', request: LIST, kind: 'list', bearer: true, targets: { gateway: `/t/${AUTH_TENANT}/mcp` } },
  {
    id: 'tools/call',
    request: ECHO,
    kind: 'echo',
    targets: { gateway: '/t/bench/mcp', limited: '/t/bench/mcp', raw: '/mcp', sdk1: '/mcp', sdk2: '/mcp' },
  },
  {
    id: 'proxied call',
    request: ECHO,
    kind: 'echo',
    proxied: 'beside',
    targets: { gateway: '/t/proxy/mcp', guarded: '/t/proxy/mcp', rawproxy: '/mcp', upstream: '/mcp' },
  },
  // The same call at one connection: no queueing, so p50 / p99 differences are the gateway's own added latency.
  {
    id: 'proxied call @1',
    request: ECHO,
    kind: 'echo',
    proxied: 'beside',
    connections: 1,
    targets: { gateway: '/t/proxy/mcp', rawproxy: '/mcp', upstream: '/mcp' },
  },
  // The upstream on the proxy's core: the two processes' summed CPU per call is what is measured.
  {
    id: 'proxied call (shared core)',
    request: ECHO,
    kind: 'echo',
    proxied: 'shared',
    targets: { gateway: '/t/proxy/mcp', rawproxy: '/mcp', upstream: '/mcp' },
  },
];

/** The workloads to run: all, or the ids named in BENCH_WORKLOADS. */
export function selectWorkloads(only) {
  return WORKLOADS.filter((w) => only.length === 0 || only.includes(w.id));
}

/** Semantic check of one preflight response; its bytes then become the expected bytes. */
function checkResult(workload, result) {
  if (workload.kind === 'list') {
    if (!Array.isArray(result.tools)) return 'result.tools is not an array';
    const names = new Set(result.tools.map((t) => t?.name));
    if (names.size !== result.tools.length) return 'duplicate tool names';
    const missing = FIXTURE_TOOL_NAMES.filter((n) => !names.has(n));
    if (missing.length) return `missing tools: ${missing.slice(0, 5).join(', ')}`;
    return null;
  }
  if (result.isError) return 'tools/call answered isError';
  const text = Array.isArray(result.content) ? result.content.find((c) => c?.type === 'text')?.text : undefined;
  return typeof text === 'string' && text.includes('hello') ? null : 'no text content containing "hello"';
}

/** JSON-RPC response from a JSON or a one-event SSE body. */
function parseRpc(text, contentType) {
  if ((contentType ?? '').includes('text/event-stream')) {
    const data = text
      .split('\n')
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(5).trim());
    for (const d of data) {
      const msg = JSON.parse(d);
      if (msg && msg.id !== undefined) return msg;
    }
    throw new Error('no JSON-RPC response in the event stream');
  }
  return JSON.parse(text);
}

// ---------------------------------------------------------------------------------------------
// Preparation: start everything, capture and validate each target's response bytes
// ---------------------------------------------------------------------------------------------
export async function post(url, headers, body) {
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body), signal: AbortSignal.timeout(10_000) });
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    sessionId: res.headers.get('mcp-session-id'),
    bytes: Buffer.from(await res.arrayBuffer()),
  };
}

/** Two identical, valid responses ⇒ their bytes are what every load response must equal. */
export async function capture(url, headers, workload) {
  const a = await post(url, headers, workload.request);
  if (a.status !== 200) throw new Error(`HTTP ${a.status}: ${a.bytes.toString('utf8').slice(0, 300)}`);
  const rpc = parseRpc(a.bytes.toString('utf8'), a.contentType);
  if (!rpc.result) throw new Error(`no result: ${a.bytes.toString('utf8').slice(0, 300)}`);
  const bad = checkResult(workload, rpc.result);
  if (bad) throw new Error(bad);
  const b = await post(url, headers, workload.request);
  if (!a.bytes.equals(b.bytes)) throw new Error('two identical requests got different bytes (the byte-exact check cannot be used)');
  return { bytes: a.bytes, contentType: a.contentType };
}
