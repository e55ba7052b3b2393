// The notification-flood phase's probes (Redis memory, X's stream keys, CPU of the gateway and
// of Redis) and its table, apart from run.mjs so the phase reads as its steps.
import { readFileSync } from 'node:fs';

export const MiB = 1024 * 1024;

/** Redis used_memory, X's resumable-stream keys and both processes' CPU seconds, read on demand. */
export function floodProbes(redis, namespace, gatewayPid) {
  const usedMb = async () => Number(/used_memory:(\d+)/.exec(await redis.info('memory'))[1]) / MiB;
  const xKeysMb = async () => {
    let bytes = 0;
    for (const key of await redis.keys(`${namespace}sb:sse*`)) bytes += Number((await redis.memory('USAGE', key)) ?? 0);
    return bytes / MiB;
  };
  // CPU seconds of the gateway (from /proc) and of Redis (INFO cpu): where the flood's cost lands.
  const gwCpu = () =>
    readFileSync(`/proc/${gatewayPid}/stat`, 'utf8')
      .split(') ')[1]
      .split(' ')
      .slice(11, 13)
      .reduce((a, v) => a + Number(v), 0) / 100;
  const redisCpu = async () => {
    const info = await redis.info('cpu');
    return Number(/used_cpu_sys:([\d.]+)/.exec(info)[1]) + Number(/used_cpu_user:([\d.]+)/.exec(info)[1]);
  };
  return { usedMb, xKeysMb, cpu: async () => ({ gw: gwCpu(), redis: await redisCpu(), at: Date.now() }) };
}

/** The phase's table: Redis and Y's throughput before, during (peak) and after X's flood. */
export function printFloodTable({ got, before, during, after, peak, tenantBound, cpu: [cpu0, cpu1, cpu2], ok }) {
  console.log(
    `\nNotification flood (Redis-backed gateway, default budgets: ${tenantBound / MiB} MiB of resumable streams per tenant): X got ${got.calls} answers, ${got.progress} progress notifications of 1 MiB (${got.warnings} budget warnings, ${got.failed} failed)\n`,
  );
  const busy = (a, b, k) => `${(((b[k] - a[k]) / ((b.at - a.at) / 1000)) * 100).toFixed(0)}%`;
  console.log(
    '| moment | Redis used_memory MiB | X tenant stream keys (MEMORY USAGE) MiB | documented bound MiB | Y tools/list req/s | p99 ms | Y tools/call req/s | p99 ms | gateway CPU | Redis CPU |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  const f = (w, b) =>
    `${w.rps.toFixed(0)}${b ? ` (${((w.rps / b.rps) * 100).toFixed(0)}%)` : ''} | ${(w.p99 / 1000).toFixed(1)}${b ? ` (${(w.p99 / b.p99).toFixed(2)}×)` : ''}`;
  console.log(
    `| before | ${before.used.toFixed(1)} | ${before.x.toFixed(1)} | ${tenantBound / MiB} | ${f(before.list)} | ${f(before.call)} | ${busy(cpu0, cpu1, 'gw')} | ${busy(cpu0, cpu1, 'redis')} |`,
  );
  console.log(
    `| during (peak) | ${peak.used.toFixed(1)} | ${peak.x.toFixed(1)} | ${tenantBound / MiB} | ${f(during.list, before.list)} | ${f(during.call, before.call)} | ${busy(cpu1, cpu2, 'gw')} | ${busy(cpu1, cpu2, 'redis')} |`,
  );
  console.log(`| after | ${after.used.toFixed(1)} | ${after.x.toFixed(1)} | ${tenantBound / MiB} | | | | | | |`);
  console.log(
    `verdict: ${ok ? 'ok' : 'MISS'} (X's keys within the bound + 25 % Redis overhead, Y throughput ≥ 90 % of this gateway's own baseline); Redis used_memory is the whole server's (other users included)`,
  );
}
