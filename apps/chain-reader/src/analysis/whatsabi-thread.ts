import { Worker } from 'node:worker_threads';
import type { Hex } from 'viem';

/** Raw findings of whatsabi on one bytecode. */
export interface WhatsabiFindings {
  selectors: string[];
  events: string[];
}

// Runs in a worker thread: whatsabi's static analysis is CPU-bound (it walks the whole
// bytecode), and keeping it off the main thread keeps request latency flat. whatsabi's CJS
// build requires an ESM-only dependency, which plain Node 24 loads (require(esm)) but jest's
// module system does not, which is one more reason to load it in its own thread.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { whatsabi } = require(workerData.whatsabiPath);
parentPort.on('message', ({ id, code }) => {
  try {
    const abi = whatsabi.abiFromBytecode(code);
    const selectors = [...new Set(abi.filter((x) => x.type === 'function').map((x) => x.selector))].sort();
    const events = [...new Set(abi.filter((x) => x.type === 'event').map((x) => x.hash))].sort();
    parentPort.postMessage({ id, selectors, events });
  } catch (e) {
    parentPort.postMessage({ id, error: String((e && e.message) || e) });
  }
});
`;

interface Reply {
  id: number;
  selectors?: string[];
  events?: string[];
  error?: string;
}

/** One lazily started worker thread running whatsabi. */
export class WhatsabiThread {
  private worker?: Worker;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (f: WhatsabiFindings) => void; reject: (e: Error) => void }>();

  analyze(code: Hex): Promise<WhatsabiFindings> {
    const worker = this.start();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.postMessage({ id, code });
    });
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { whatsabiPath: require.resolve('@shazow/whatsabi') } });
    worker.unref();
    worker.on('message', (reply: Reply) => {
      const w = this.waiting.get(reply.id);
      if (!w) return;
      this.waiting.delete(reply.id);
      if (reply.error !== undefined) w.reject(new Error(`bytecode analysis failed: ${reply.error}`));
      else w.resolve({ selectors: reply.selectors ?? [], events: reply.events ?? [] });
    });
    const failAll = (err: Error): void => {
      for (const w of this.waiting.values()) w.reject(err);
      this.waiting.clear();
      this.worker = undefined;
    };
    worker.on('error', failAll);
    worker.on('exit', (code) => failAll(new Error(`analysis thread exited with ${code}`)));
    this.worker = worker;
    return worker;
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    if (w) await w.terminate();
  }
}
