/**
 * Per-client surfaces (issue 2, item 7): one catalog of 40 tools, three of them carrying
 * OpenAI `securitySchemes` and widget `_meta`. Claude (recognised by User-Agent, Origin or
 * modern `_meta` clientInfo) sees no securitySchemes and no `openai/*` / `ui` `_meta`, with
 * `annotations.title` and every hint present; ChatGPT sees the OpenAI fields; a generic
 * client sees the spec-pure shape. Everyone sees the same 40 tools, in both eras.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  FIXTURE_40,
  LEGACY,
  POST_HEADERS,
  json,
  modernHeaders,
  modernRequest,
  startGateway,
  type Json,
  type TestGateway,
} from './support/harness';

interface PublishedTool {
  name: string;
  title?: string;
  description?: string;
  annotations?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
  securitySchemes?: unknown;
  [key: string]: unknown;
}

type Era = 'legacy' | 'modern';
type ClientKind = 'claude-ua' | 'claude-origin' | 'claude-clientinfo' | 'openai' | 'generic';

const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;
/** Spec defaults (2025-03-26+) a surface fills in when a tool leaves a hint out. */
const HINT_DEFAULTS = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };
/** Tool fields the 2025-11-25 / 2026-07-28 schemas define. */
const SPEC_TOOL_FIELDS = new Set([
  'name',
  'title',
  'description',
  'inputSchema',
  'outputSchema',
  'annotations',
  '_meta',
  'icons',
  'execution',
]);
const OPENAI_TOOLS = ['drive_get_file_content', 'stripe_create_payment_intent', 'calendar_create_event'];
const MAX_PAGES = 50;

let gw: TestGateway;
let fixtureNames: string[];
let bareDir: string;

beforeAll(async () => {
  const fixture = JSON.parse(await readFile(FIXTURE_40, 'utf8')) as { tools: Json[] };
  fixtureNames = fixture.tools.map((t) => t.name as string);
  // The same 40 tools with their annotations removed: shows what the surfaces fill in.
  bareDir = await mkdtemp(path.join(tmpdir(), 'sb-surface-'));
  const bare = { ...fixture, tools: fixture.tools.map(({ annotations: _drop, ...rest }) => rest) };
  const barePath = path.join(bareDir, 'bare-40-tools.json');
  await writeFile(barePath, JSON.stringify(bare));
  gw = await startGateway({
    tenants: [
      { id: 'saas', name: 'SaaS', catalogs: [{ fixture: FIXTURE_40 }] },
      { id: 'bare', name: 'SaaS without annotations', catalogs: [{ fixture: barePath }] },
    ],
  });
});

afterAll(async () => {
  await gw?.close();
  if (bareDir) await rm(bareDir, { recursive: true, force: true });
});

/** Headers and `_meta` client name that make a request look like `kind`. */
function identity(kind: ClientKind): { headers: Record<string, string>; clientName?: string } {
  switch (kind) {
    case 'claude-ua':
      return { headers: { 'user-agent': 'claude-code/2.1.3 (cli)' } };
    case 'claude-origin':
      return { headers: { origin: 'https://claude.ai' } };
    case 'claude-clientinfo':
      return { headers: {}, clientName: 'claude-ai' };
    case 'openai':
      return { headers: { origin: 'https://chatgpt.com' } };
    case 'generic':
      return { headers: { 'user-agent': 'node' } };
  }
}

/** Every tool of `tools/list`, following `nextCursor`. */
async function listTools(tenant: string, era: Era, kind: ClientKind): Promise<PublishedTool[]> {
  const { headers: extra, clientName } = identity(kind);
  const tools: PublishedTool[] = [];
  let cursor: string | undefined;
  for (let page = 0, id = 1; page < MAX_PAGES; page++, id++) {
    const params: Json = cursor === undefined ? {} : { cursor };
    const body =
      era === 'modern'
        ? modernRequest(id, 'tools/list', params, clientName ?? 'e2e-generic')
        : { jsonrpc: '2.0', id, method: 'tools/list', params };
    const headers =
      era === 'modern' ? { ...modernHeaders('tools/list'), ...extra } : { ...POST_HEADERS, 'mcp-protocol-version': LEGACY, ...extra };
    const res = await gw.inject({ method: 'POST', url: `/t/${tenant}/mcp`, headers, payload: JSON.stringify(body) });
    expect(res.statusCode).toBe(200);
    const result = json(res).result as { tools: PublishedTool[]; nextCursor?: string; resultType?: string };
    if (era === 'modern') expect(result.resultType).toBe('complete');
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (cursor === undefined) return tools;
  }
  throw new Error(`tools/list did not end within ${MAX_PAGES} pages`);
}

function metaKeys(tools: PublishedTool[]): string[] {
  return tools.flatMap((t) => Object.keys(t._meta ?? {}));
}

const ERAS: Era[] = ['legacy', 'modern'];
const CLAUDE_CASES: Array<[Era, ClientKind]> = [
  ['legacy', 'claude-ua'],
  ['modern', 'claude-ua'],
  ['legacy', 'claude-origin'],
  ['modern', 'claude-origin'],
  ['modern', 'claude-clientinfo'],
];

describe.each(CLAUDE_CASES)('Claude surface (%s era, recognised by %s)', (era, kind) => {
  test('no securitySchemes, no openai/* or ui _meta, annotations.title and every hint on every tool', async () => {
    const tools = await listTools('saas', era, kind);
    expect(tools.map((t) => t.name)).toEqual(fixtureNames);
    expect(JSON.stringify(tools)).not.toContain('securitySchemes');
    const keys = metaKeys(tools);
    expect(keys.filter((k) => k.startsWith('openai/'))).toEqual([]);
    expect(keys.filter((k) => k === 'ui' || k.startsWith('ui/'))).toEqual([]);
    for (const tool of tools) {
      expect(typeof tool.annotations?.title).toBe('string');
      expect((tool.annotations?.title as string).length).toBeGreaterThan(0);
      for (const hint of HINTS) expect(typeof tool.annotations?.[hint]).toBe('boolean');
    }
  });

  test('missing annotations are filled: title mirrored, hints at their spec defaults', async () => {
    const tools = await listTools('bare', era, kind);
    expect(tools.map((t) => t.name)).toEqual(fixtureNames);
    for (const tool of tools) {
      expect(tool.annotations?.title).toBe(tool.title);
      expect(tool.annotations).toMatchObject(HINT_DEFAULTS);
    }
  });
});

describe.each(ERAS)('ChatGPT surface (%s era, Origin https://chatgpt.com)', (era) => {
  test('sees securitySchemes and the widget _meta on the three OpenAI tools', async () => {
    const tools = await listTools('saas', era, 'openai');
    expect(tools.map((t) => t.name)).toEqual(fixtureNames);
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of OPENAI_TOOLS) {
      const tool = byName.get(name)!;
      expect(tool.securitySchemes).toEqual([{ type: 'oauth2', scopes: ['tools:write'] }]);
      expect(tool._meta?.['openai/outputTemplate']).toBe(`ui://widget/${name}.html`);
      expect(tool._meta?.['openai/toolInvocation/invoking']).toBeDefined();
    }
    expect(
      tools
        .filter((t) => t.securitySchemes !== undefined)
        .map((t) => t.name)
        .sort(),
    ).toEqual([...OPENAI_TOOLS].sort());
    for (const tool of tools) {
      expect(typeof tool.annotations?.title).toBe('string');
      for (const hint of HINTS) expect(typeof tool.annotations?.[hint]).toBe('boolean');
    }
  });
});

describe.each(ERAS)('generic surface (%s era)', (era) => {
  test('spec-pure shape: no top-level securitySchemes, only spec tool fields', async () => {
    const tools = await listTools('saas', era, 'generic');
    expect(tools.map((t) => t.name)).toEqual(fixtureNames);
    for (const tool of tools) {
      expect(tool).not.toHaveProperty('securitySchemes');
      for (const field of Object.keys(tool)) expect(SPEC_TOOL_FIELDS).toContain(field);
      expect(tool.inputSchema).toMatchObject({ type: 'object' });
    }
  });

  test('no vendor _meta: the OpenAI widget keys (openai/*, ui) stay on the ChatGPT surface', async () => {
    const tools = await listTools('saas', era, 'generic');
    const vendorTools = tools.filter((t) => (OPENAI_TOOLS as readonly string[]).includes(t.name));
    expect(vendorTools).toHaveLength(OPENAI_TOOLS.length);
    for (const tool of tools) expect(tool._meta).toBeUndefined();
  });

  test('nothing is invented for a generic client: tools without annotations stay without', async () => {
    const tools = await listTools('bare', era, 'generic');
    expect(tools.map((t) => t.name)).toEqual(fixtureNames);
    for (const tool of tools) expect(tool.annotations).toBeUndefined();
  });
});

test('Claude, ChatGPT and a generic client see the same 40 tool names in the same order, in both eras', async () => {
  const lists = await Promise.all(
    ERAS.flatMap((era) =>
      (['claude-ua', 'claude-origin', 'openai', 'generic'] as ClientKind[]).map((kind) => listTools('saas', era, kind)),
    ),
  );
  lists.push(await listTools('saas', 'modern', 'claude-clientinfo'));
  expect(fixtureNames).toHaveLength(40);
  for (const tools of lists) expect(tools.map((t) => t.name)).toEqual(fixtureNames);
});

test('a spoofed signal only shapes what is published, never what is callable', async () => {
  const call = (headers: Record<string, string>) =>
    gw.inject({
      method: 'POST',
      url: '/t/saas/mcp',
      headers: { ...POST_HEADERS, 'mcp-protocol-version': LEGACY, ...headers },
      payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'same' } } }),
    });
  const [claude, generic] = await Promise.all([call({ 'user-agent': 'claude-code/2.1.3' }), call({})]);
  expect(json(claude).result).toEqual(json(generic).result);
});
