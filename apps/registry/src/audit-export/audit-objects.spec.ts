import { gunzipSync } from 'node:zlib';
import { auditObjects, limitDays, MAX_DAYS_PER_BATCH, type AuditEntry } from './audit-objects';

const entry = (id: number, at: string): AuditEntry => ({
  id: String(id),
  txid: String(1000 + id),
  actor: 'key:ci',
  action: 'key.create',
  target: `k${id}`,
  details: { n: id },
  at: new Date(at),
});

describe('audit export objects', () => {
  it('writes one gzipped JSON Lines object per UTC day, named after its first entry', () => {
    const objects = auditObjects('acme', 'exports/', [
      entry(7, '2026-12-05T23:59:59Z'),
      entry(8, '2026-12-06T00:00:01Z'),
      entry(9, '2026-12-06T10:00:00Z'),
    ]);
    expect(objects.map((o) => [o.key, o.entries])).toEqual([
      ['exports/tenant=acme/date=2026-12-05/00000000000000000007.jsonl.gz', 1],
      ['exports/tenant=acme/date=2026-12-06/00000000000000000008.jsonl.gz', 2],
    ]);
    const lines = gunzipSync(objects[1]!.body)
      .toString('utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toEqual([
      { id: 8, tenant: 'acme', at: '2026-12-06T00:00:01.000Z', actor: 'key:ci', action: 'key.create', target: 'k8', details: { n: 8 } },
      { id: 9, tenant: 'acme', at: '2026-12-06T10:00:00.000Z', actor: 'key:ci', action: 'key.create', target: 'k9', details: { n: 9 } },
    ]);
  });

  it('names a retried batch that grew the same way, so the retry overwrites instead of duplicating', () => {
    const first = auditObjects('acme', '', [entry(1, '2026-12-06T01:00:00Z'), entry(2, '2026-12-06T02:00:00Z')]);
    const retry = auditObjects('acme', '', [
      entry(1, '2026-12-06T01:00:00Z'),
      entry(2, '2026-12-06T02:00:00Z'),
      entry(3, '2026-12-06T03:00:00Z'),
    ]);
    expect(retry.map((o) => o.key)).toEqual(first.map((o) => o.key));
    expect(retry[0]!.entries).toBe(3);
  });

  it('cuts a batch before the entry that would open one day too many, keeping a prefix', () => {
    const days = Array.from({ length: MAX_DAYS_PER_BATCH + 2 }, (_, i) =>
      entry(i + 1, `2026-11-${String(i + 1).padStart(2, '0')}T12:00:00Z`),
    );
    const cut = limitDays(days);
    expect(cut).toEqual(days.slice(0, MAX_DAYS_PER_BATCH));
    expect(limitDays(days.slice(0, 2))).toEqual(days.slice(0, 2));
    expect(auditObjects('acme', '', cut)).toHaveLength(MAX_DAYS_PER_BATCH);
  });
});
