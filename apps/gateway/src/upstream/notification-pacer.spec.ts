import { NotificationPacer } from './notification-pacer';

describe('NotificationPacer', () => {
  const KiB = 1024;

  it('charges nothing within the burst, then the time the excess takes at the rate', () => {
    let now = 0;
    const pacer = new NotificationPacer(100 * KiB, 200 * KiB, () => now);
    const pace = pacer.forTenant('x');
    expect(pace(100 * KiB)).toBe(0);
    expect(pace(100 * KiB)).toBe(0);
    // 300 KiB owed against a 200 KiB burst at 100 KiB/s: one second.
    expect(pace(100 * KiB)).toBe(1000);
    now = 1000;
    expect(pace(0)).toBe(0);
    expect(pace(50 * KiB)).toBe(500);
  });

  it('keeps tenants apart: one in debt does not slow another', () => {
    const now = 0;
    const pacer = new NotificationPacer(KiB, KiB, () => now);
    expect(pacer.forTenant('x')(10 * KiB)).toBe(9000);
    expect(pacer.forTenant('y')(KiB)).toBe(0);
  });

  it('forgets tenants with no debt once many are metered', () => {
    let now = 0;
    const pacer = new NotificationPacer(KiB, KiB, () => now);
    for (let i = 0; i < 10_000; i++) pacer.forTenant(`t${i}`)(1);
    now = 10_000;
    pacer.forTenant('late')(1);
    expect(pacer.size).toBe(1);
  });
});
