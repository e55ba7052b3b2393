import { PROBED_CAPABILITIES, type ProbedCapability } from './discovery-capabilities';

/**
 * Per gated tool (listed with every capability, not without any), the capabilities whose
 * leave-one-out list lacks it: a conjunction (sampling and tasks) vanishes from both lists. A
 * tool no single left-out capability hides (it wants any one of several) gets none: it cannot
 * be attributed and stays ungated.
 */
export function attributeCapabilities(
  full: readonly string[],
  bare: readonly string[],
  without: ReadonlyMap<ProbedCapability, readonly string[]>,
): Map<string, ProbedCapability[]> {
  const plain = new Set(bare);
  const lists = new Map([...without].map(([cap, names]) => [cap, new Set(names)] as const));
  const out = new Map<string, ProbedCapability[]>();
  for (const name of full) {
    if (plain.has(name)) continue;
    const needs = PROBED_CAPABILITIES.filter((cap) => lists.get(cap)?.has(name) === false);
    if (needs.length > 0) out.set(name, needs);
  }
  return out;
}
