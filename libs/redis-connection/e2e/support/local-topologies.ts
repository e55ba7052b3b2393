// A real Redis Sentinel set and a real Redis Cluster on loopback free ports, started by the
// test with the `redis-server` on PATH (`redis-server <conf> --sentinel` is Sentinel; the
// Cluster's slots are assigned with CLUSTER ADDSLOTSRANGE and joined with CLUSTER MEET, so
// `redis-cli` is not needed). Every wait polls with a deadline; `stop()` kills what was started.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pollUntil as poll } from '@switchboard/testing';
import { Redis } from 'ioredis';

/** A free loopback port whose cluster-bus twin (port + 10000) is free too. */
export async function freePortPair(): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const port = await listenFree(0);
    if (
      port + 10_000 <= 65_535 &&
      (await listenFree(port + 10_000).then(
        () => true,
        () => false,
      ))
    )
      return port;
  }
  throw new Error('no free port pair on loopback');
}

function listenFree(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(port, '127.0.0.1', () => {
      const p = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(p));
    });
  });
}

/** Polls until `fn` is truthy or the deadline passes (no fixed sleeps); Sentinel failovers get 30 s. */
export function pollUntil<T>(
  what: string,
  fn: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 30_000,
  everyMs = 100,
): Promise<T> {
  return poll(what, fn, timeoutMs, everyMs);
}

/** One short command against one server (a fresh connection that gives up at once). */
async function command(port: number, ...args: string[]): Promise<unknown> {
  const r = new Redis(port, '127.0.0.1', {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
    connectTimeout: 1_000,
  });
  r.on('error', () => undefined);
  try {
    await r.connect();
    return await r.call(args[0] ?? 'PING', ...args.slice(1));
  } finally {
    r.disconnect();
  }
}

class Processes {
  readonly dir = mkdtempSync(path.join(os.tmpdir(), 'sb-redis-topology-'));
  private readonly children: ChildProcess[] = [];
  private logs = '';

  start(args: string[]): ChildProcess {
    const child = spawn('redis-server', args, { cwd: this.dir, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', (c: Buffer) => (this.logs = (this.logs + c.toString()).slice(-20_000)));
    child.stderr?.on('data', (c: Buffer) => (this.logs = (this.logs + c.toString()).slice(-20_000)));
    this.children.push(child);
    return child;
  }

  output(): string {
    return this.logs;
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.children.map(
        (c) =>
          new Promise<void>((resolve) => {
            if (c.exitCode !== null || c.signalCode !== null) return resolve();
            c.once('exit', () => resolve());
            c.kill('SIGKILL');
          }),
      ),
    );
    rmSync(this.dir, { recursive: true, force: true });
  }
}

const SERVER_ARGS = ['--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'no'];

export interface LocalSentinel {
  /** `redis-sentinel://127.0.0.1:a,127.0.0.1:b,127.0.0.1:c/<master>` */
  url: string;
  masterName: string;
  /** The port of the server the Sentinels currently name master. */
  masterPort(): Promise<number>;
  /** SENTINEL FAILOVER, then waits until the Sentinels name the other server and it answers as master. */
  failover(): Promise<{ from: number; to: number }>;
  output(): string;
  stop(): Promise<void>;
}

/** A master, one replica and three Sentinels (quorum 2) on free loopback ports. */
export async function startLocalSentinel(masterName = 'sbmaster'): Promise<LocalSentinel> {
  const procs = new Processes();
  const [master, replica, ...sentinels] = (await Promise.all([
    listenFree(0),
    listenFree(0),
    listenFree(0),
    listenFree(0),
    listenFree(0),
  ])) as [number, number, number, number, number];
  try {
    procs.start(['--port', String(master), ...SERVER_ARGS]);
    procs.start(['--port', String(replica), '--replicaof', '127.0.0.1', String(master), ...SERVER_ARGS]);
    await pollUntil('replica in sync', async () => String(await command(replica, 'INFO', 'replication')).includes('master_link_status:up'));
    for (const port of sentinels) {
      const conf = path.join(procs.dir, `sentinel-${port}.conf`);
      writeFileSync(
        conf,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          'protected-mode no',
          `dir ${procs.dir}`,
          `sentinel monitor ${masterName} 127.0.0.1 ${master} 2`,
          `sentinel down-after-milliseconds ${masterName} 2000`,
          `sentinel failover-timeout ${masterName} 10000`,
          `sentinel parallel-syncs ${masterName} 1`,
          '',
        ].join('\n'),
      );
      procs.start([conf, '--sentinel']);
    }
    const replicaKnown = async (port: number) => {
      const replicas = (await command(port, 'SENTINEL', 'REPLICAS', masterName)) as string[][];
      return replicas.some((r) => {
        const f = Object.fromEntries(r.flatMap((v, i, a) => (i % 2 === 0 ? [[v, a[i + 1]]] : [])));
        return (
          f.port === String(replica) &&
          f['master-link-status'] === 'ok' &&
          !String(f.flags).includes('disconnected') &&
          !String(f.flags).includes('s_down')
        );
      });
    };
    // Every Sentinel knows the master, the replica and the other Sentinels before the test starts.
    await pollUntil(
      'sentinels ready',
      async () => {
        for (const s of sentinels) {
          const peers = (await command(s, 'SENTINEL', 'SENTINELS', masterName)) as unknown[];
          if (peers.length < sentinels.length - 1 || !(await replicaKnown(s))) return false;
        }
        return true;
      },
      45_000,
    );
  } catch (err) {
    const out = procs.output();
    await procs.stop();
    throw new Error(`${(err as Error).message}\n${out}`);
  }
  const masterPort = async () => Number(((await command(sentinels[0], 'SENTINEL', 'GET-MASTER-ADDR-BY-NAME', masterName)) as string[])[1]);
  return {
    url: `redis-sentinel://${sentinels.map((p) => `127.0.0.1:${p}`).join(',')}/${masterName}`,
    masterName,
    masterPort,
    async failover() {
      const from = await masterPort();
      const to = from === master ? replica : master;
      // The server about to be promoted must be a synced replica the Sentinels see (it was the master before a previous failover).
      await pollUntil(
        'replica ready for failover',
        async () => {
          for (const s of sentinels) {
            const replicas = (await command(s, 'SENTINEL', 'REPLICAS', masterName)) as string[][];
            const ok = replicas.some((r) => {
              const f = Object.fromEntries(r.flatMap((v, i, a) => (i % 2 === 0 ? [[v, a[i + 1]]] : [])));
              return f.port === String(to) && f['master-link-status'] === 'ok' && !String(f.flags).includes('s_down');
            });
            if (!ok) return false;
          }
          return true;
        },
        45_000,
      );
      await pollUntil(
        'SENTINEL FAILOVER accepted',
        async () => (await command(sentinels[0], 'SENTINEL', 'FAILOVER', masterName)) === 'OK',
        20_000,
        500,
      );
      await pollUntil(
        'the other server promoted',
        async () => {
          for (const s of sentinels) {
            const addr = (await command(s, 'SENTINEL', 'GET-MASTER-ADDR-BY-NAME', masterName)) as string[];
            if (Number(addr[1]) !== to) return false;
          }
          return String(await command(to, 'ROLE')).startsWith('master');
        },
        45_000,
      );
      return { from, to };
    },
    output: () => procs.output(),
    stop: () => procs.stop(),
  };
}

export interface LocalCluster {
  /** `redis-cluster://127.0.0.1:a,127.0.0.1:b,127.0.0.1:c` */
  url: string;
  ports: number[];
  output(): string;
  stop(): Promise<void>;
}

/** Three masters with `cluster-enabled yes`, the 16384 slots split between them, joined and `cluster_state:ok` on every node. */
export async function startLocalCluster(): Promise<LocalCluster> {
  const procs = new Processes();
  const ports: number[] = [];
  for (let i = 0; i < 3; i++) ports.push(await freePortPair());
  try {
    for (const port of ports) {
      procs.start([
        '--port',
        String(port),
        ...SERVER_ARGS,
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        `nodes-${port}.conf`,
        '--cluster-node-timeout',
        '3000',
      ]);
    }
    await pollUntil('cluster nodes up', async () => (await Promise.all(ports.map((p) => command(p, 'PING')))).every((r) => r === 'PONG'));
    const ranges: Array<[number, number]> = [
      [0, 5460],
      [5461, 10922],
      [10923, 16383],
    ];
    for (const [i, port] of ports.entries()) {
      const [lo, hi] = ranges[i] ?? [0, 0];
      await command(port, 'CLUSTER', 'ADDSLOTSRANGE', String(lo), String(hi));
    }
    for (const port of ports.slice(1)) await command(ports[0] ?? 0, 'CLUSTER', 'MEET', '127.0.0.1', String(port));
    await pollUntil(
      'cluster_state:ok on every node',
      async () => {
        for (const port of ports) {
          const info = String(await command(port, 'CLUSTER', 'INFO'));
          if (!info.includes('cluster_state:ok') || !info.includes('cluster_known_nodes:3') || !info.includes('cluster_slots_ok:16384'))
            return false;
        }
        return true;
      },
      45_000,
    );
  } catch (err) {
    const out = procs.output();
    await procs.stop();
    throw new Error(`${(err as Error).message}\n${out}`);
  }
  return {
    url: `redis-cluster://${ports.map((p) => `127.0.0.1:${p}`).join(',')}`,
    ports,
    output: () => procs.output(),
    stop: () => procs.stop(),
  };
}
