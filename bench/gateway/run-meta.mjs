// bench/gateway's run description: settings read from the environment, what ran where (meta),
// and the closing paragraph on machine load that tells how far absolute numbers can be trusted.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fmt, median } from './report.mjs';

function packageVersion(root, name) {
  try {
    return JSON.parse(readFileSync(path.join(root, 'node_modules', name, 'package.json'), 'utf8')).version;
  } catch {
    return 'unknown';
  }
}

export function list(raw, sep = ',') {
  return (raw ?? '')
    .split(sep)
    .map((s) => s.trim())
    .filter(Boolean);
}

export function positiveNumber(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got "${raw}"`);
  return value;
}

export function nonNegativeNumber(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a number >= 0, got "${raw}"`);
  return value;
}

// ---------------------------------------------------------------------------------------------
/** What ran, where and with which versions; printed at the start and saved with the results. */
export function runMeta(o) {
  const cpus = os.cpus();
  const meta = {
    startedAt: new Date().toISOString(),
    node: process.version,
    cpus: cpus.length,
    cpuModel: cpus[0]?.model ?? 'unknown',
    loadAvgAtStart: os.loadavg(),
    connections: o.connections,
    durationS: o.durationS,
    warmupS: o.warmupS,
    rounds: o.rounds,
    serverCpu: o.serverCpu,
    loadgenCpu: o.loadgenCpu,
    upstreamCpu: o.upstreamCpu,
    versions: {
      wrk: spawnSync('wrk', ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0],
      '@modelcontextprotocol/sdk': packageVersion(o.root, '@modelcontextprotocol/sdk'),
      '@modelcontextprotocol/server': packageVersion(o.root, '@modelcontextprotocol/server'),
      '@modelcontextprotocol/fastify': packageVersion(o.root, '@modelcontextprotocol/fastify'),
      '@modelcontextprotocol/node': packageVersion(o.root, '@modelcontextprotocol/node'),
      fastify: packageVersion(o.root, 'fastify'),
    },
  };
  console.log(
    `bench/gateway: wrk -t1 -c${o.connections} on cpu ${o.loadgenCpu}, servers on cpu ${o.serverCpu} (a proxied upstream on cpu ${o.upstreamCpu.beside} behind a proxy, ${o.upstreamCpu.shared} in the shared-core row); ${o.warmupS}s warm-up + ${o.durationS}s per cell, ` +
      `${o.rounds} interleaved round(s), medians; node ${meta.node}, ${meta.cpus} CPU(s); load average at start ${meta.loadAvgAtStart.map((l) => l.toFixed(2)).join(' ')}`,
  );
  return meta;
}

/** Machine load during the run and how to read the table. */
export function printFooter(meta, cells) {
  const others = median(cells.flatMap((c) => (c.rounds ?? []).map((r) => r.otherCpuPct)));
  const steal = median(cells.flatMap((c) => (c.rounds ?? []).map((r) => r.stealCpuPct)));
  console.log(
    [
      '',
      `Machine load: load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(
          ' ',
        )} at the end; other processes used a median ${fmt(others)}% CPU during the cells; hypervisor steal (CPU the host gave other guests) a median ${fmt(steal)}%`,
      `(100% = one core, of ${meta.cpus}). Absolute numbers move with that; ratios measured side by side in this run are what count.`,
      'checked = responses compared byte for byte with the preflight response (a row with any mismatch, socket error or',
      'timeout is FAILED; the first mismatching body is in results/logs/*.mismatch.txt). req/CPU-s = responses per CPU-second',
      'of the server process (from /proc/<pid>/stat); ÷raw CPU-s compares that with the raw row of the same workload.',
      "idle MB = the server process RSS after boot, before any load; after MB = the largest RSS seen after this row's cells.",
    ].join('\n'),
  );
}
