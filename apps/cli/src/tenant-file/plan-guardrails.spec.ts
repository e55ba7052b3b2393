import type { GetGuardrailsResponse } from '@switchboard/admin-api';
import { exportTenantFile } from './export-tenant-file';
import type { LiveState } from './live-state';
import { parseTenantFile } from './load-tenant-file';
import { planTenant, planView } from './plan';

const screen: GetGuardrailsResponse['interceptors'][number] = {
  name: 'screen',
  type: 'validation',
  hook: { events: ['tools/call'], phase: 'request' },
  mode: 'enforce',
  failOpen: true,
  use: { webhook: { url: 'https://guard.example/screen', timeoutMs: 2000, maxBytes: 65536, secretSet: true } },
};
const pii: GetGuardrailsResponse['interceptors'][number] = {
  name: 'pii',
  type: 'mutation',
  hook: { events: ['tools/call'], phase: 'response' },
  mode: 'audit',
  failOpen: false,
  use: { builtin: 'pii' },
};

function live(interceptors: GetGuardrailsResponse['interceptors']): LiveState {
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
    auth: { configured: false, protected: false, scopes: [], defaultScopes: null, toolScopes: {}, idp: { kind: 'local' }, connectors: {} },
    limits: { rate: null, callLog: null },
    guardrails: { interceptors },
    servers: [],
    publications: [],
  };
}

// The file leaves the API's defaults out (mode, failOpen false, phase response, timeoutMs, maxBytes).
const FILE = `version: 1
guardrails:
  interceptors:
    - name: screen
      type: validation
      hook: { events: [tools/call], phase: request }
      failOpen: true
      use: { webhook: { url: https://guard.example/screen, secret: { fromEnv: SCREEN_SECRET } } }
    - { name: pii, type: mutation, hook: { events: [tools/call] }, mode: audit, use: { builtin: pii } }
`;

const plan = (yaml: string, state: LiveState, rotateSecrets = false) =>
  planTenant(parseTenantFile(yaml, 't.yaml'), state, { rotateSecrets });

describe('the guardrails section of a tenant file', () => {
  it('has nothing to do when the chain matches (defaults and a stored secret are no difference)', () => {
    expect(planView(plan(FILE, live([screen, pii]))).changes).toEqual([]);
  });

  it('sends the whole chain when the order changes, keeping the stored secret unless rotating', async () => {
    const step = plan(FILE, live([pii, screen])).steps[0]!;
    expect(step.changes).toEqual([{ field: 'guardrails.order', before: ['pii', 'screen'], after: ['screen', 'pii'] }]);
    expect(step.secrets).toEqual([]);
    const sent: unknown[] = [];
    const client = { call: async (op: string, input: { body: unknown }) => void sent.push([op, input.body]) };
    await step.execute({ client: client as never, env: {}, discovering: new Set(), discoveryWaitMs: 0 });
    expect(JSON.stringify(sent)).not.toContain('secret');
    expect((sent[0] as [string, { interceptors: Array<{ name: string }> }])[1].interceptors.map((i) => i.name)).toEqual(['screen', 'pii']);

    const rotating = plan(FILE, live([screen, pii]), true).steps[0]!;
    expect(rotating.secrets).toEqual([{ env: 'SCREEN_SECRET', field: 'guardrails.interceptors.0.use.webhook.secret' }]);
    expect(rotating.changes).toEqual([
      { field: 'guardrails.interceptors.screen.use.webhook.secret', after: '(secret from env SCREEN_SECRET)' },
    ]);
  });

  it('sends the secret with a new webhook interceptor and removes one the file drops', () => {
    const added = plan(FILE, live([pii])).steps[0]!;
    expect(added.secrets).toEqual([{ env: 'SCREEN_SECRET', field: 'guardrails.interceptors.0.use.webhook.secret' }]);
    const dropped = planView(plan('version: 1\nguardrails:\n  interceptors: []\n', live([pii])));
    expect(dropped.changes).toEqual([
      {
        action: 'update',
        target: 'guardrails',
        fields: [
          { field: 'guardrails.interceptors', before: { pii: expect.objectContaining({ name: 'pii' }) } },
          { field: 'guardrails.order', before: ['pii'], after: [] },
        ],
      },
    ]);
  });

  it('exports the chain with webhook secrets as environment references, and re-plans to nothing', () => {
    const exported = exportTenantFile(live([screen, pii]));
    expect(exported.guardrails?.interceptors[0]).toMatchObject({
      name: 'screen',
      use: { webhook: { url: 'https://guard.example/screen', secret: { fromEnv: 'SWITCHBOARD_SECRET_GUARDRAIL_SCREEN' } } },
    });
    expect(JSON.stringify(exported)).not.toContain('secretSet');
    expect(planTenant(exported, live([screen, pii])).steps.filter((s) => s.target === 'guardrails')).toEqual([]);
  });
});
