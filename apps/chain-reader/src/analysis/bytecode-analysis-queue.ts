import { Queue, QueueEvents, Worker, type Job } from 'bullmq';
import { bullPrefix, createRedis, type RedisClient } from '@switchboard/redis-connection';
import type { Hex } from 'viem';
import type { ChainCache } from '../cache/chain-cache';
import { summarizeBytecode, type BytecodeAnalysis } from './analyze-bytecode';
import { WhatsabiThread } from './whatsabi-thread';

interface AnalysisJob {
  chain: string;
  address: string;
  codeHash: Hex;
  code: Hex;
}

export interface BytecodeAnalysisQueueOptions {
  redisUrl: string;
  /** BullMQ key prefix (per app / per test). */
  prefix: string;
  queueName: string;
  /** How long analysis results stay cached (they depend only on the code hash). */
  ttlSec: number;
  /** A caller waits this long for the job before analysing inline. Default 5 s. */
  waitTimeoutMs?: number;
  /** Run a worker in this process (default true). */
  runWorker?: boolean;
}

/** How an analysis was obtained. */
export type AnalysisVia = 'cache' | 'job' | 'inline';

/**
 * Bytecode analysis as a BullMQ job whose result is cached by code hash. Concurrent callers
 * share one job (jobId `chain_address_codehash`; BullMQ forbids ':' in custom ids) and one
 * in-process promise; later callers hit the cache. When Redis is not ready the analysis runs
 * inline, so a Redis outage costs CPU, never an error.
 */
export class BytecodeAnalysisQueue {
  private queue?: Queue<AnalysisJob, BytecodeAnalysis>;
  private events?: QueueEvents;
  private worker?: Worker<AnalysisJob, BytecodeAnalysis>;
  private readonly connections: RedisClient[] = [];
  private readonly pending = new Map<string, Promise<{ analysis: BytecodeAnalysis; via: AnalysisVia }>>();
  private started?: Promise<void>;
  private readonly thread = new WhatsabiThread();
  /** Jobs this process's worker ran (observability and tests). */
  processed = 0;

  constructor(
    private readonly cache: ChainCache,
    private readonly options: BytecodeAnalysisQueueOptions,
  ) {}

  async analyze(chain: string, address: string, code: Hex, codeHash: Hex): Promise<{ analysis: BytecodeAnalysis; via: AnalysisVia }> {
    const cacheKey = this.cache.key('analysis', codeHash);
    const hit = await this.cache.get<BytecodeAnalysis>(cacheKey);
    if (hit) return { analysis: hit, via: 'cache' };
    const existing = this.pending.get(codeHash);
    if (existing) return existing;
    const p = this.runJob({ chain, address: address.toLowerCase(), codeHash, code }).finally(() => this.pending.delete(codeHash));
    this.pending.set(codeHash, p);
    return p;
  }

  private async runJob(data: AnalysisJob): Promise<{ analysis: BytecodeAnalysis; via: AnalysisVia }> {
    if (!this.cache.ready) return { analysis: await this.analyzeHere(data), via: 'inline' };
    try {
      await this.start();
      const queue = this.queue!;
      const jobId = `${data.chain}_${data.address}_${data.codeHash}`;
      const job = await queue.add('analyze', data, { jobId, removeOnComplete: { age: 3_600 }, removeOnFail: true, attempts: 1 });
      const analysis = await job.waitUntilFinished(this.events!, this.options.waitTimeoutMs ?? 5_000);
      return { analysis, via: 'job' };
    } catch {
      // queue unavailable or slow: the analysis is cheap enough to do here
      const analysis = await this.analyzeHere(data);
      await this.cache.set(this.cache.key('analysis', data.codeHash), analysis, this.options.ttlSec);
      return { analysis, via: 'inline' };
    }
  }

  private start(): Promise<void> {
    this.started ??= (async () => {
      const conn = (): RedisClient => {
        const c = createRedis(this.options.redisUrl, { maxRetriesPerRequest: null, connectTimeout: 1_000 });
        c.on('error', () => undefined);
        this.connections.push(c);
        return c;
      };
      const { queueName } = this.options;
      // One hash-tagged prefix: every key of the queue in one Cluster slot (BullMQ's scripts are multi-key).
      const prefix = bullPrefix(this.options.prefix);
      this.queue = new Queue<AnalysisJob, BytecodeAnalysis>(queueName, { connection: conn(), prefix });
      this.queue.on('error', () => undefined);
      this.events = new QueueEvents(queueName, { connection: conn(), prefix });
      this.events.on('error', () => undefined);
      if (this.options.runWorker !== false) {
        this.worker = new Worker<AnalysisJob, BytecodeAnalysis>(
          queueName,
          async (job: Job<AnalysisJob, BytecodeAnalysis>) => {
            this.processed += 1;
            const analysis = await this.analyzeHere(job.data);
            await this.cache.set(this.cache.key('analysis', job.data.codeHash), analysis, this.options.ttlSec);
            return analysis;
          },
          { connection: conn(), prefix, concurrency: 4 },
        );
        this.worker.on('error', () => undefined);
        await this.worker.waitUntilReady();
      }
      await this.events.waitUntilReady();
    })();
    return this.started;
  }

  private async analyzeHere(data: AnalysisJob): Promise<BytecodeAnalysis> {
    return summarizeBytecode(data.code, data.codeHash, await this.thread.analyze(data.code));
  }

  /** Stops the worker and connections; `obliterate` removes the queue's keys (tests). */
  async close(options: { obliterate?: boolean } = {}): Promise<void> {
    if (this.started) {
      await this.started.catch(() => undefined);
      await this.worker?.close();
      if (options.obliterate) await this.queue?.obliterate({ force: true }).catch(() => undefined);
      await this.queue?.close();
      await this.events?.close();
    }
    for (const c of this.connections) c.disconnect();
    await this.thread.close();
  }
}
