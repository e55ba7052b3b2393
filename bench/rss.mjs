// Resident-set readings shared by the benches (Linux /proc).
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** Resident set size in MB, from /proc/<pid>/status; null when the process is gone. */
export function rssMb(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/**
 * The RSS once boot-time work (JIT, lazy init, GC) has settled: polled every 100 ms until it moved
 * less than 1 MB over the last 500 ms, or `withinMs` passed (then the last reading).
 */
export async function settledRssMb(pid, withinMs = 5_000) {
  const deadline = Date.now() + withinMs;
  const readings = [rssMb(pid)];
  while (Date.now() < deadline) {
    await sleep(100);
    readings.push(rssMb(pid));
    const window = readings.slice(-6);
    if (window.length === 6 && window.every((r) => r !== null && Math.abs(r - window[0]) < 1)) break;
  }
  return readings.at(-1);
}
