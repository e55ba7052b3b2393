import { workingSetHeapProblem } from './working-set';

const MIB = 1024 * 1024;

describe('workingSetHeapProblem', () => {
  it('accepts a tenant budget within half the heap limit', () => {
    expect(workingSetHeapProblem(256 * MIB, 4096 * MIB)).toBeUndefined();
    expect(workingSetHeapProblem(256 * MIB, 512 * MIB)).toBeUndefined();
  });

  it('names the settings when a full working set would not fit the heap (a small container)', () => {
    expect(workingSetHeapProblem(256 * MIB, 384 * MIB)).toMatch(/GATEWAY_TENANT_CACHE_MB .* --max-old-space-size/);
  });
});
