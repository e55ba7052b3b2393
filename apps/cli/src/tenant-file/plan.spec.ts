import type { Publication, Server } from '@switchboard/admin-api';
import type { LiveState } from './live-state';
import { planTenant, planView, renderPlan } from './plan';
import { parseTenantFile } from './load-tenant-file';

const server = (id: string, extra: Partial<Server> = {}): Server => ({
  id,
  name: id.toUpperCase(),
  url: `https://${id}.example/mcp`,
  transport: 'auto',
  auth: { mode: 'bearer', hasSecret: true },
  health: 'ok',
  lastError: null,
  lastDiscoveredAt: null,
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-01T00:00:00Z',
  ...extra,
});

const pub = (serverId: string, name: string, overrides: Publication['overrides'] = {}): Publication => ({
  kind: 'tool',
  exposedName: name,
  serverId,
  upstreamName: name,
  overrides,
});

function live(over: Partial<LiveState> = {}): LiveState {
  return {
    tenant: {
      id: 'acme',
      name: 'Acme',
      description: null,
      currentVersion: 'v1',
      mcpUrl: 'https://gw/t/acme/mcp',
      claudeCommand: '',
      origins: [],
      hosts: [],
      surfaceRules: {},
    },
    auth: {
      configured: true,
      protected: false,
      scopes: ['crm.read'],
      defaultScopes: null,
      toolScopes: {},
      idp: { kind: 'oidc', issuer: 'https://idp.example', clientId: 'sb', scopes: ['openid'], clientSecretSet: true },
      connectors: {},
    },
    limits: { rate: null, callLog: null },
    guardrails: { interceptors: [] },
    servers: [server('crm')],
    publications: [pub('crm', 'lookup')],
    ...over,
  };
}

const crm = (auth = 'auth: { mode: bearer, token: { fromEnv: CRM_TOKEN } }', publish = 'publish: [{ name: lookup }]') =>
  `version: 1\nservers:\n  - id: crm\n    name: CRM\n    url: https://crm.example/mcp\n    ${auth}\n    ${publish}\n`;

const plan = (yaml: string, state = live(), rotateSecrets = false) =>
  planView(planTenant(parseTenantFile(yaml, 't.yaml'), state, { rotateSecrets }));

describe('planTenant', () => {
  it('has nothing to do when the file matches (a write-only secret is not a difference)', () => {
    expect(plan(crm()).changes).toEqual([]);
  });

  it('re-sends a secret only with --rotate-secrets, showing the variable and never a value', () => {
    const view = plan(crm(), live(), true);
    expect(view.changes).toEqual([
      {
        action: 'update',
        target: 'server crm',
        fields: [{ field: 'auth', after: { mode: 'bearer', token: '(secret from env CRM_TOKEN)' } }],
        discovery: true,
      },
    ]);
  });

  it('changes the auth mode with the new secret reference and reruns discovery', () => {
    const view = plan(crm('auth: { mode: header, header: x-key, value: { fromEnv: CRM_KEY } }'));
    expect(view.changes[0]).toMatchObject({ target: 'server crm', discovery: true });
    expect(view.changes[0].fields).toEqual(
      expect.arrayContaining([
        { field: 'auth.mode', before: 'bearer', after: 'header' },
        { field: 'auth.value', after: '(secret from env CRM_KEY)' },
      ]),
    );
    expect(
      planTenant(parseTenantFile(crm('auth: { mode: header, header: x-key, value: { fromEnv: CRM_KEY } }'), 't'), live()).steps[0].secrets,
    ).toEqual([{ env: 'CRM_KEY', field: 'servers.0.auth.value' }]);
  });

  it('removes a server the file no longer lists, naming what it published', () => {
    const view = plan(crm(), live({ servers: [server('crm'), server('old')], publications: [pub('crm', 'lookup'), pub('old', 'ping')] }));
    expect(view.changes).toEqual([
      {
        action: 'delete',
        target: 'server old',
        fields: [
          { field: 'url', before: 'https://old.example/mcp' },
          { field: 'publications', before: ['ping'] },
        ],
      },
    ]);
    expect(view.summary).toEqual({ create: 0, update: 0, delete: 1 });
  });

  it('unpublishes an item left out of a publish list, and leaves publications alone without one', () => {
    expect(plan(crm(undefined, 'publish: []')).changes).toEqual([
      { action: 'delete', target: 'publications of crm', fields: [{ field: 'tool:lookup', before: { exposedName: 'lookup' } }] },
    ]);
    expect(plan(crm(undefined, '')).changes).toEqual([]);
  });

  it('compares auth settings key by key without the IdP secret, and limits as given', () => {
    const file = `version: 1\nauth:\n  protected: true\n  scopes: [crm.read]\n  idp: { kind: oidc, issuer: https://idp.example, clientId: sb, scopes: [openid], clientSecret: { fromEnv: IDP } }\nlimits:\n  callLog: { retentionDays: 7 }\n`;
    const view = plan(file);
    expect(view.changes).toEqual([
      { action: 'update', target: 'auth', fields: [{ field: 'auth.protected', before: false, after: true }] },
      { action: 'update', target: 'limits', fields: [{ field: 'limits.callLog.retentionDays', after: 7 }] },
    ]);
    expect(renderPlan(view)).toContain('Plan: 0 to create, 2 to change, 0 to remove.');
  });

  it('creates a new server before its publications and lists the discovery it starts', () => {
    const view = plan(
      `version: 1\nservers:\n  - id: crm\n    name: CRM\n    url: https://crm.example/mcp\n  - id: docs\n    name: Docs\n    url: https://docs.example/mcp\n    publish: [{ name: search, exposedName: docs_search }]\n`,
      live({ servers: [server('crm', { auth: { mode: 'none', hasSecret: false } })], publications: [] }),
    );
    expect(view.changes.map((c) => `${c.action} ${c.target}`)).toEqual(['create server docs', 'create publications of docs']);
    expect(view.discoveries).toEqual(['docs']);
  });
});
