import { discoverySettingsSchema, tenantAuthSchema, type CatalogSnapshot, type ToolDefinition, type ToolEntry } from '@switchboard/catalog';
import { surfaceProfiles, type TenantSurfaceRules } from '@switchboard/protocol';
import { explainTool } from './explain-tool';
import { EXPLAIN_RULES, type ExplainRuleId, type TenantFacts, type ToolExplanation, type ToolFacts } from './explain-types';

const HINTS = { readOnlyHint: true, destructiveHint: false, openWorldHint: false };
const LONG = 'create_invoice_for_a_customer_with_a_name_long_enough_to_pass_sixty_four_chars';

function entry(name: string, extra: Partial<ToolDefinition> = {}, unlisted = false): ToolEntry {
  return {
    definition: { name, title: name, inputSchema: { type: 'object' }, annotations: { ...HINTS }, ...extra },
    route: { kind: 'upstream', serverId: 'billing', url: 'http://up.example/mcp', upstreamName: name },
    ...(unlisted ? { unlisted: true } : {}),
  };
}

function tenant(tools: ToolEntry[] | undefined, o: Partial<TenantFacts> & { rules?: TenantSurfaceRules } = {}): TenantFacts {
  const snapshot: CatalogSnapshot | undefined = tools && {
    tenantId: 'acme',
    version: 'v1',
    server: { name: 'acme', version: '1' },
    tools,
    resources: [],
    resourceTemplates: [],
    prompts: [],
  };
  return {
    snapshot,
    surfaces: surfaceProfiles(o.rules),
    surfaceId: 'claude',
    version: '2025-11-25',
    discovery: undefined,
    auth: undefined,
    interceptors: [],
    caller: {},
    ...o,
  };
}

/** Facts of a tool discovered and published under its own name, unchanged upstream. */
function published(name: string, o: Partial<ToolFacts> = {}): ToolFacts {
  const definition = { name, title: name, inputSchema: { type: 'object' }, annotations: { ...HINTS } };
  return {
    name,
    discovered: [{ serverId: 'billing', key: name, definition, contentHash: 'h1', findings: 0, removed: false }],
    publication: {
      serverId: 'billing',
      key: name,
      exposedName: name,
      approvedHash: 'h1',
      approvedDefinition: definition,
      overrides: {},
    },
    ...o,
  };
}

const step = (e: ToolExplanation, rule: ExplainRuleId) => {
  const found = e.rules.find((s) => s.rule === rule);
  if (!found) throw new Error(`no step ${rule} in ${e.rules.map((s) => s.rule).join(', ')}`);
  return found;
};

describe('explainTool', () => {
  it('walks every rule in order for a listed, callable tool, each passing or not applying', () => {
    const e = explainTool(tenant([entry('create_invoice')]), published('create_invoice'));
    expect(e.rules.map((s) => s.rule)).toEqual([...EXPLAIN_RULES]);
    expect(e.rules.filter((s) => !['pass', 'skip'].includes(s.verdict))).toEqual([]);
    expect(e).toMatchObject({ listed: true, callable: 'yes', server: 'billing', upstreamName: 'create_invoice', surface: 'claude' });
  });

  it('discovered: hides a name no server lists, pointing at the Servers page', () => {
    const e = explainTool(tenant([]), { name: 'create_invoice', discovered: [], publication: undefined });
    expect(step(e, 'discovered')).toMatchObject({ verdict: 'hide', fix: { href: '/console/servers' } });
    expect(step(e, 'live').verdict).toBe('hide');
    expect(e).toMatchObject({ listed: false, callable: 'no' });
  });

  it('discovered: a tool removed upstream is hidden', () => {
    const f = published('create_invoice');
    f.discovered[0]!.removed = true;
    expect(step(explainTool(tenant([]), { ...f, publication: undefined }), 'discovered').verdict).toBe('hide');
  });

  it('publish-checks: a discovered tool without hints is refused by the publish gate, with the editor field to fix', () => {
    const f = published('create_invoice', { publication: undefined });
    f.discovered[0]!.definition = { name: 'create_invoice', inputSchema: { type: 'object' } };
    const s = step(explainTool(tenant([]), f), 'publish-checks');
    expect(s.verdict).toBe('hide');
    expect(s.message).toContain('read-only');
    expect(s.fix?.href).toBe('/console/tools?tool=billing%2Fcreate_invoice&field=readOnlyHint');
  });

  it('publish-checks: unacknowledged poisoned-tool findings block an unpublished tool', () => {
    const f = published('create_invoice', { publication: undefined });
    f.discovered[0]!.findings = 2;
    expect(step(explainTool(tenant([]), f), 'publish-checks')).toMatchObject({
      verdict: 'hide',
      input: { problems: [{ rule: 'findings' }] },
    });
  });

  it('published: a discovered, unpublished tool is hidden until published', () => {
    const e = explainTool(tenant([]), published('create_invoice', { publication: undefined }));
    expect(step(e, 'published')).toMatchObject({ verdict: 'hide', fix: { href: '/console/tools?tool=billing%2Fcreate_invoice' } });
  });

  it('exposed-name: asked by its upstream name, a collision-prefixed tool says the name clients see', () => {
    const f = published('create_invoice');
    f.publication!.exposedName = 'billing_create_invoice';
    const e = explainTool(tenant([entry('billing_create_invoice')]), f);
    expect(step(e, 'exposed-name')).toMatchObject({ verdict: 'hide', input: { exposedName: 'billing_create_invoice' } });
    expect(step(e, 'exposed-name').message).toContain('billing_create_invoice');
  });

  it('change-review: an upstream change waiting for review is a warning, not a hide', () => {
    const f = published('create_invoice');
    f.discovered[0]!.contentHash = 'h2';
    const e = explainTool(tenant([entry('create_invoice')]), f);
    expect(step(e, 'change-review')).toMatchObject({ verdict: 'warn', fix: { href: '/console/review' } });
    expect(e.listed).toBe(true);
  });

  it('live: a published tool missing from the live snapshot, and a tenant that never published', () => {
    expect(step(explainTool(tenant([]), published('create_invoice')), 'live').verdict).toBe('hide');
    expect(step(explainTool(tenant(undefined), published('create_invoice')), 'live').message).toContain('not published a catalog');
  });

  it('retired: a grace-period name is callable but not listed', () => {
    const e = explainTool(tenant([entry('old_invoice', {}, true)]), { name: 'old_invoice', discovered: [], publication: undefined });
    expect(step(e, 'retired').verdict).toBe('hide');
    expect(step(e, 'listed').verdict).toBe('hide');
    expect(e).toMatchObject({ listed: false, callable: 'yes' });
  });

  it('surface: reports the profile used', () => {
    const e = explainTool(tenant([entry('create_invoice')], { surfaceId: 'openai' }), published('create_invoice'));
    expect(step(e, 'surface')).toMatchObject({ verdict: 'pass', input: { used: 'openai', maxNameLength: 64 } });
    const unknown = explainTool(tenant([entry('create_invoice')], { surfaceId: 'nope' }), published('create_invoice'));
    expect(step(unknown, 'surface')).toMatchObject({ verdict: 'warn', input: { used: 'generic' } });
  });

  it('name-charset: a name outside the MCP charset is published nowhere', () => {
    const e = explainTool(tenant([entry('create invoice')]), published('create invoice'));
    expect(step(e, 'name-charset').verdict).toBe('hide');
    expect(step(e, 'listed').verdict).toBe('hide');
    expect(e.listed).toBe(false);
  });

  it('name-length: too long for claude (64) but listed on generic (128); still callable', () => {
    const claude = explainTool(tenant([entry(LONG)]), published(LONG));
    expect(step(claude, 'name-length')).toMatchObject({ verdict: 'hide', input: { length: LONG.length, maxNameLength: 64 } });
    expect(claude).toMatchObject({ listed: false, callable: 'yes' });
    expect(explainTool(tenant([entry(LONG)], { surfaceId: 'generic' }), published(LONG)).listed).toBe(true);
  });

  it('max-tools: past the surface cap in catalog order, counting only tools the surface lists', () => {
    const tools = [entry('a_tool'), entry(LONG), entry('b_tool'), entry('create_invoice')];
    const t = tenant(tools, { rules: { surfaces: { claude: { maxTools: 2 } } } });
    const e = explainTool(t, published('create_invoice'));
    expect(step(e, 'max-tools')).toMatchObject({
      verdict: 'hide',
      input: { listedBefore: 2, maxTools: 2 },
      fix: { href: '/console/settings' },
    });
    expect(step(e, 'listed').message).not.toContain('disagree');
    expect(step(explainTool(t, published('b_tool')), 'max-tools').verdict).toBe('pass');
  });

  it('discovery: in discovery mode an unpinned tool is hidden but callable; a pinned one is listed', () => {
    const discovery = discoverySettingsSchema.parse({ mode: 'on', pinned: ['pinned_tool'] });
    const t = tenant([entry('create_invoice'), entry('pinned_tool')], { discovery });
    const e = explainTool(t, published('create_invoice'));
    expect(step(e, 'discovery')).toMatchObject({ verdict: 'hide', input: { mode: 'on', active: true, pinned: false } });
    expect(e).toMatchObject({ listed: false, callable: 'yes' });
    expect(step(explainTool(t, published('pinned_tool')), 'discovery').verdict).toBe('pass');
  });

  it('listed: reads the compiled list and agrees with the rules', () => {
    const e = explainTool(tenant([entry('create_invoice')]), published('create_invoice'));
    expect(step(e, 'listed')).toMatchObject({ verdict: 'pass', input: { listedCount: 1 } });
  });

  const protectedAuth = (extra: Record<string, unknown> = {}) =>
    tenantAuthSchema.parse({
      protected: true,
      scopes: ['mcp:tools', 'billing:write'],
      toolScopes: { create_invoice: ['billing:write'] },
      ...extra,
    });

  it('user: a disabled or invited directory user gets no token; an unknown one depends; an open tenant skips it', () => {
    const t = (status: 'active' | 'invited' | 'disabled' | 'unknown', auth = protectedAuth()) =>
      explainTool(
        tenant([entry('create_invoice')], { auth, caller: { subject: { username: 'bob', status } } }),
        published('create_invoice'),
      );
    expect(step(t('disabled'), 'user')).toMatchObject({ verdict: 'refuse', fix: { href: '/console/users' } });
    expect(t('disabled').callable).toBe('no');
    expect(step(t('invited'), 'user').verdict).toBe('refuse');
    expect(step(t('active'), 'user').verdict).toBe('pass');
    expect(step(t('unknown'), 'user').verdict).toBe('conditional');
    expect(step(t('disabled', tenantAuthSchema.parse({ protected: false })), 'user').verdict).toBe('skip');
  });

  it('tool-scopes: refuses a token without the tool scope, passes a broader one, depends without scopes', () => {
    const t = (scopes?: string[]) => tenant([entry('create_invoice')], { auth: protectedAuth(), caller: scopes ? { scopes } : {} });
    expect(step(explainTool(t(['mcp:tools']), published('create_invoice')), 'tool-scopes')).toMatchObject({
      verdict: 'refuse',
      input: { missing: ['billing:write'] },
      fix: { href: '/console/auth' },
    });
    expect(explainTool(t(['mcp:tools']), published('create_invoice')).callable).toBe('no');
    expect(step(explainTool(t(['billing']), published('create_invoice')), 'tool-scopes').verdict).toBe('pass');
    expect(explainTool(t(), published('create_invoice'))).toMatchObject({ callable: 'depends' });
    expect(step(explainTool(tenant([entry('create_invoice')]), published('create_invoice')), 'tool-scopes').verdict).toBe('skip');
  });

  it('idp-group: a user in no group mapping to the tool scope is refused; a mapped group passes', () => {
    const idp = {
      issuer: 'https://idp.example',
      jwksUri: 'https://idp.example/jwks',
      allowedClients: ['client'],
      groupScopes: { finance: ['billing:write'], staff: ['mcp:tools'] },
    };
    const t = (groups?: string[]) =>
      tenant([entry('create_invoice')], { auth: protectedAuth({ enterpriseIdps: [idp] }), caller: groups ? { groups } : {} });
    expect(step(explainTool(t(['staff']), published('create_invoice')), 'idp-group')).toMatchObject({
      verdict: 'refuse',
      fix: { href: '/console/enterprise' },
    });
    expect(step(explainTool(t(['finance']), published('create_invoice')), 'idp-group').verdict).toBe('pass');
    expect(step(explainTool(t(), published('create_invoice')), 'idp-group')).toMatchObject({
      verdict: 'conditional',
      input: { granting: [{ groups: ['finance'] }] },
    });
  });

  it('client-capabilities: refuses a client that does not declare what the upstream registered the tool for', () => {
    const t = (capabilities?: string[]) =>
      tenant([entry('create_invoice', { requiredClientCapabilities: ['elicitation'] })], { caller: capabilities ? { capabilities } : {} });
    const refused = step(explainTool(t(['roots']), published('create_invoice')), 'client-capabilities');
    expect(refused.verdict).toBe('refuse');
    expect(refused.message).toContain('elicitation');
    expect(step(explainTool(t(['elicitation']), published('create_invoice')), 'client-capabilities').verdict).toBe('pass');
    const url = (caps: string[]) =>
      step(
        explainTool(
          tenant([entry('create_invoice', { requiredClientCapabilities: ['elicitation.url'] })], { caller: { capabilities: caps } }),
          published('create_invoice'),
        ),
        'client-capabilities',
      ).verdict;
    expect([url(['elicitation']), url(['elicitation', 'elicitation.url'])]).toEqual(['refuse', 'pass']);
    expect(step(explainTool(t(), published('create_invoice')), 'client-capabilities').verdict).toBe('conditional');
  });

  it('task-support: a task-only tool is refused to a 2026-07-28 client without the tasks extension, not to a 2025-11-25 one', () => {
    const t = (version: '2025-11-25' | '2026-07-28', capabilities?: string[]) =>
      tenant([entry('create_invoice', { taskSupport: 'required' })], { version, caller: capabilities ? { capabilities } : {} });
    expect(step(explainTool(t('2026-07-28', ['sampling']), published('create_invoice')), 'task-support').verdict).toBe('refuse');
    expect(step(explainTool(t('2026-07-28', ['tasks']), published('create_invoice')), 'task-support').verdict).toBe('pass');
    expect(step(explainTool(t('2026-07-28'), published('create_invoice')), 'task-support').verdict).toBe('conditional');
    expect(step(explainTool(t('2025-11-25', []), published('create_invoice')), 'task-support').verdict).toBe('pass');
  });

  it('rate-limit: a per-tool limit overrides the per-caller one; no plan of its own passes', () => {
    const ratePlan = {
      subject: { requestsPerSecond: 10, burst: 20 },
      tools: { create_invoice: { requestsPerSecond: 0.5, burst: 1 } },
      dailyCalls: 1000,
    };
    const limited = step(explainTool(tenant([entry('create_invoice')], { ratePlan }), published('create_invoice')), 'rate-limit');
    expect(limited).toMatchObject({
      verdict: 'conditional',
      input: { tool: { requestsPerSecond: 0.5 } },
      fix: { href: '/console/limits' },
    });
    expect(limited.message).toBe('Calls past 0.5/s (burst 1) per caller for this tool, 1000 calls a day answer −32029');
    expect(step(explainTool(tenant([entry('create_invoice')]), published('create_invoice')), 'rate-limit').verdict).toBe('pass');
  });

  it("connector: a connector server's tool needs each user's upstream token; an open tenant fails closed", () => {
    const connectors = { billing: { issuer: 'https://as.example', clientId: 'c' } };
    const t = (isProtected: boolean) =>
      explainTool(
        tenant([entry('create_invoice')], { auth: tenantAuthSchema.parse({ protected: isProtected, connectors }) }),
        published('create_invoice'),
      );
    expect(step(t(true), 'connector')).toMatchObject({ verdict: 'conditional', input: { server: 'billing', connector: true } });
    expect(step(t(false), 'connector')).toMatchObject({ verdict: 'refuse', fix: { href: '/console/auth' } });
    expect(t(false).callable).toBe('no');
    expect(step(explainTool(tenant([entry('create_invoice')]), published('create_invoice')), 'connector').verdict).toBe('pass');
  });

  it('guardrails: an enforcing validation interceptor matching the tool may refuse its calls; audit or other tools do not', () => {
    const interceptor = (name: string, o: Record<string, unknown>) => ({
      name,
      type: 'validation',
      hook: { events: ['tools/call'], phase: 'request' },
      ...o,
    });
    const t = tenant([entry('create_invoice')], {
      interceptors: [
        interceptor('amount-cap', { match: { tools: ['create_*'] } }),
        interceptor('redact', { type: 'mutation', hook: { events: ['tools/call'], phase: 'response' } }),
        interceptor('audit-only', { mode: 'audit' }),
        interceptor('prompts-only', { hook: { events: ['prompts/get'], phase: 'response' } }),
        interceptor('other-server', { match: { servers: ['crm'] } }),
      ],
    });
    expect(step(explainTool(t, published('create_invoice')), 'guardrails')).toMatchObject({
      verdict: 'conditional',
      input: { interceptors: ['amount-cap', 'redact'] },
      fix: { href: '/console/guardrails' },
    });
    expect(step(explainTool(tenant([entry('create_invoice')]), published('create_invoice')), 'guardrails').verdict).toBe('pass');
  });
});
