import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readTenantSeed } from './read-tenant-seed';
import { TenantSeedError } from './tenant-seed-error';

describe('readTenantSeed', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'seed-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (text: string) => {
    const file = path.join(dir, `t${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(file, text);
    return file;
  };

  it('reads the repository seed: file tenants and the registry-seeded protected tenant', () => {
    const seeds = readTenantSeed(path.join(__dirname, '../../../config/tenants.yaml'));
    expect(seeds.map((s) => [s.settings.id, s.seed])).toEqual([
      ['demo', 'file'],
      ['conformance', 'file'],
      ['secure', 'registry'],
    ]);
    expect(seeds[2]?.settings.auth).toMatchObject({ protected: true, scopes: ['mcp:tools'], idp: { kind: 'local' } });
  });

  it('lists every problem with the field as written in the file', () => {
    const file = write(
      'tenants:\n  - id: Bad\n    name: x\n    catalogs: [{ builtin: demo }]\n  - id: ok\n    name: y\n    surfaces: { clientSurfaces: { c: ghost } }\n    catalogs: [{ builtin: demo }]\n  - id: z\n    name: z\n',
    );
    let err: unknown;
    try {
      readTenantSeed(file);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TenantSeedError);
    const message = (err as Error).message;
    expect(message).toMatch(/tenants\.2\.catalogs: is required/);
    expect(message).not.toMatch(/tenants\.0/); // schema errors first; settings are checked once the file's shape is right
  });

  it('names settings problems by the tenant index and the file field', () => {
    const file = write(
      'tenants:\n  - id: Bad\n    name: x\n    catalogs: [{ builtin: demo }]\n  - id: ok\n    name: y\n    surfaces: { clientSurfaces: { c: ghost } }\n    catalogs: [{ builtin: demo }]\n',
    );
    expect(() => readTenantSeed(file)).toThrow(/tenants\.0\.id: must be a DNS label[\s\S]*tenants\.1\.surfaces: .*ghost/);
  });

  it('refuses a duplicate tenant id and an unreadable file', () => {
    expect(() =>
      readTenantSeed(
        write('tenants:\n  - { id: a, name: a, catalogs: [{ builtin: demo }] }\n  - { id: a, name: b, catalogs: [{ builtin: demo }] }\n'),
      ),
    ).toThrow(/tenants\.1\.id: tenant id "a" appears twice/);
    expect(() => readTenantSeed(path.join(dir, 'missing.yaml'))).toThrow(expect.objectContaining({ code: 'SEED_UNREADABLE' }));
  });
});
