import { buildTenantDocument } from './build-tenant-document';
import { CatalogError } from './catalog-error';
import type { CatalogSnapshot } from './definitions';
import { parseTenantDocument } from './parse-tenant-document';
import { tenantSettingsSchema } from './tenant-settings-schema';

const snapshot: CatalogSnapshot = {
  tenantId: 'acme',
  version: 'v1',
  server: { name: 's', version: '1' },
  tools: [],
  resources: [],
  resourceTemplates: [],
  prompts: [],
};
const settings = tenantSettingsSchema.parse({ id: 'acme', name: 'Acme' });

describe('tenant documents', () => {
  it('round-trips a built document through JSON, version unchanged', () => {
    const doc = buildTenantDocument({ ...settings, limits: { plan: { perMinute: 5 } } }, snapshot);
    const parsed = parseTenantDocument(JSON.parse(JSON.stringify(doc)));
    expect(parsed).toEqual(doc);
    expect(parsed.limits).toEqual({ plan: { perMinute: 5 } });
  });

  it('carries the guardrails section with its defaults filled, and drops an empty one', () => {
    const interceptor = {
      name: 'pii',
      type: 'mutation' as const,
      hook: { events: ['tools/call' as const] },
      use: { builtin: 'pii' as const },
    };
    const parsed = parseTenantDocument({ id: 'acme', name: 'Acme', snapshot, guardrails: { interceptors: [interceptor] } });
    expect(parsed.guardrails?.interceptors).toEqual([
      { ...interceptor, hook: { events: ['tools/call'], phase: 'response' }, mode: 'enforce', failOpen: false },
    ]);
    expect(parseTenantDocument({ id: 'acme', name: 'Acme', snapshot, guardrails: { interceptors: [] } }).guardrails).toBeUndefined();
  });

  it('gives a settings-only change a new version while the catalog version stays', () => {
    const open = buildTenantDocument(settings, snapshot);
    const locked = buildTenantDocument(
      {
        ...settings,
        auth: {
          protected: true,
          scopes: ['mcp:tools'],
          idp: { kind: 'local' },
          toolScopes: {},
          connectors: {},
          allowPrivateUseRedirects: true,
          enterpriseIdps: [],
        },
      },
      snapshot,
    );
    expect(locked.snapshot.version).toBe(open.snapshot.version);
    expect(locked.version).not.toBe(open.version);
  });

  it('fills defaults of a document written by an older registry (no auth, no version)', () => {
    const parsed = parseTenantDocument({ id: 'acme', name: 'Acme', snapshot: { ...snapshot, resources: undefined } });
    expect(parsed.origins).toEqual([]);
    expect(parsed.snapshot.resources).toEqual([]);
    expect(parsed.version).toMatch(/^[0-9a-f]{64}$/);
    expect(parsed.auth).toBeUndefined();
  });

  it.each([
    [{ id: 'acme', name: 'Acme', snapshot: { ...snapshot, tenantId: 'other' } }, 'snapshot.tenantId'],
    [{ id: 'acme', name: 'Acme', auth: { protected: 'yes' }, snapshot }, 'auth.protected'],
    [{ id: 'acme', name: 'Acme', surfaceRules: { clientSurfaces: { c: 'ghost' } }, snapshot }, 'surfaceRules'],
    [{ id: 'acme', name: 'Acme', snapshot, credentials: { crm: 1 } }, 'credentials'],
    [{ id: 'Bad Id', name: 'Acme', snapshot }, 'id'],
    [
      {
        id: 'acme',
        name: 'Acme',
        snapshot,
        guardrails: { interceptors: [{ name: 'p', type: 'mutation', hook: { events: ['tools/call'] }, use: { builtin: 'nope' } }] },
      },
      'guardrails.interceptors.0.use',
    ],
  ])('refuses a malformed document naming the field (%#)', (raw, field) => {
    let err: unknown;
    try {
      parseTenantDocument(raw);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CatalogError);
    expect((err as CatalogError).code).toBe('CATALOG_INVALID_DOCUMENT');
    expect((err as CatalogError).details?.field).toBe(field);
  });
});
