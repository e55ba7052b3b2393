// The registry mode's request mix: a Zipf(s) sequence of tenant indexes (rank r → tenant s<r>, so
// s0 is the most asked), drawn with a seeded PRNG so every run and every row asks in the same
// order, written one index a line for the wrk script to read once.
import { writeFileSync } from 'node:fs';

/** mulberry32: a small seeded PRNG, uniform in [0, 1). */
function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `length` draws from Zipf(s) over ranks 0…n-1 (P(r) ∝ (r+1)^-s), by inverse CDF. */
export function zipfSequence(n, length, s = 1.1, seed = 1) {
  const cdf = new Float64Array(n);
  let sum = 0;
  for (let r = 0; r < n; r++) cdf[r] = sum += (r + 1) ** -s;
  const random = mulberry32(seed);
  const out = new Uint32Array(length);
  for (let k = 0; k < length; k++) {
    const u = random() * sum;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cdf[mid] < u) lo = mid + 1;
      else hi = mid;
    }
    out[k] = lo;
  }
  return out;
}

/** Writes the sequence one index a line; returns how many distinct tenants it asks. */
export function writeSequence(file, seq) {
  writeFileSync(file, `${Array.from(seq).join('\n')}\n`);
  return new Set(seq).size;
}

/** The wrk script's Lua: the sequence read once into request paths, and request k asking the tenant at k mod its length. */
export function zipfLua(file) {
  return {
    prelude: `local paths = {}
for line in io.lines("${file}") do paths[#paths + 1] = "/t/s" .. line .. "/mcp" end
local npaths = #paths`,
    pick: 'path = paths[(counter % npaths) + 1]',
  };
}
