import { runChain, type InterceptContext } from '@switchboard/guardrails';
import pino from 'pino';
import type { TenantCatalog } from '../catalog-source/catalog-source';
import { TenantGuardrails } from './tenant-guardrails';

const snapshot = {
  tenantId: 'acme',
  version: 'v1',
  server: { name: 's', version: '1' },
  tools: [],
  resources: [],
  resourceTemplates: [],
  prompts: [],
};
const base: TenantCatalog = { id: 'acme', name: 'Acme', origins: [], hosts: [], surfaceRules: {}, snapshot };
const pii = {
  name: 'pii',
  type: 'mutation' as const,
  hook: { events: ['tools/call' as const], phase: 'response' as const },
  mode: 'enforce' as const,
  failOpen: false,
  use: { builtin: 'pii' as const },
};
const cel = {
  ...pii,
  name: 'policy',
  type: 'validation' as const,
  use: { builtin: 'cel' as const, rules: [{ name: 'broken', expr: 'args.amount >', message: 'never' }] },
};
const ctx: InterceptContext = {
  point: 'tools/call:request',
  event: 'tools/call',
  server: 'crm',
  target: 'refund',
  caller: { subject: '', scopes: [], groups: [], client: '' },
  args: {},
  now: new Date(),
};

function guardrails(): { g: TenantGuardrails; errors: unknown[] } {
  const errors: unknown[] = [];
  const logger = pino({ level: 'error' }, { write: (line: string) => void errors.push(JSON.parse(line)) });
  return { g: new TenantGuardrails({ logger, webhook: () => Promise.reject(new Error('unused')) }), errors };
}

describe('TenantGuardrails', () => {
  it('has no entry for a tenant without interceptors, and drops it when they are removed', () => {
    const { g } = guardrails();
    g.apply(base);
    expect(g.of('acme')).toBeUndefined();
    g.apply({ ...base, guardrails: { interceptors: [pii] } });
    expect(g.of('acme')?.chains['tools/call:response']?.map((i) => i.name)).toEqual(['pii']);
    g.apply({ ...base, guardrails: { interceptors: [] } });
    expect(g.of('acme')).toBeUndefined();
  });

  it('fails closed when the section does not compile: every guarded call is denied and the errors are logged', async () => {
    const { g, errors } = guardrails();
    g.apply({ ...base, guardrails: { interceptors: [cel] } });
    const chain = g.of('acme')?.chains['tools/call:request'];
    expect(chain).toBeDefined();
    const outcome = await runChain(chain!, {}, ctx, { webhook: () => Promise.reject(new Error('unused')), record: () => undefined });
    expect(outcome).toEqual({ kind: 'deny', interceptor: 'guardrails', reason: 'guardrails configuration is invalid' });
    expect(errors).toEqual([expect.objectContaining({ tenant: 'acme', msg: 'guardrails did not compile; guarded calls are refused' })]);
  });
});
