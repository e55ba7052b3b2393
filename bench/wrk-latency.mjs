// The benches' side of bench/wrk-latency.lua: where it is, and the check that its recovered
// latencies can be trusted. A wrk script loads it with dofile(WRK_LATENCY_LUA) and prints
// latencyOf.json(latencyOf.measured(summary, latency, connections)) in its done().
import { fileURLToPath } from 'node:url';

/** The Lua that recovers the latencies wrk measured from its coordinated-omission-corrected histogram. */
export const WRK_LATENCY_LUA = fileURLToPath(new URL('./wrk-latency.lua', import.meta.url));

/**
 * Why a run's recovered latencies cannot be trusted, or null: every answered request is one
 * measured sample (unless some timed out), and no bucket comes out negative.
 */
export function measuredLatencyProblem({ requests, timeouts, latencyUs }) {
  if (latencyUs.negative > 0)
    return `wrk latency histogram: ${latencyUs.negative} bucket(s) negative after undoing wrk's correction (bench/wrk-latency.lua no longer matches this wrk)`;
  if (timeouts === 0 && latencyUs.count !== requests)
    return `wrk latency histogram: ${latencyUs.count} measured samples for ${requests} requests (bench/wrk-latency.lua no longer matches this wrk)`;
  return null;
}
