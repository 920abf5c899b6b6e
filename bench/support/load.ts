// The main thread's handle on the load generator (load-worker.ts, in a worker thread).
import { Worker } from 'node:worker_threads';
import type { LoadJob, LoadRequest, LoadResult } from './load-worker.js';

export type { LoadRequest, LoadResult };

export class LoadGenerator {
  private readonly worker: Worker;
  private nextId = 1;
  private failure: Error | undefined;
  private readonly pending = new Map<number, { resolve: (result: LoadResult) => void; reject: (error: Error) => void }>();

  constructor() {
    // tsx's loader hooks do not reach worker threads: the worker registers them itself, then
    // imports the TypeScript module.
    const entry = new URL('./load-worker.ts', import.meta.url).href;
    const tsxApi = import.meta.resolve('tsx/esm/api');
    const bootstrap = `import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`;
    this.worker = new Worker(bootstrap, { eval: true });
    this.worker.on('message', (result: LoadResult) => {
      this.pending.get(result.id)?.resolve(result);
      this.pending.delete(result.id);
    });
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', (code) => this.fail(new Error(`the load worker exited (code ${code})`)));
  }

  /** A dead worker answers nothing: fail what waits, and every later run. */
  private fail(error: Error): void {
    this.failure ??= error;
    for (const waiter of this.pending.values()) waiter.reject(error);
    this.pending.clear();
  }

  /** Sends `total` requests (cycling through `requests`) with at most `concurrency` in flight. */
  run(origin: string, requests: LoadRequest[], total: number, concurrency: number): Promise<LoadResult> {
    const job: LoadJob = { id: this.nextId++, origin, requests, total, concurrency };
    return new Promise((resolve, reject) => {
      if (this.failure) return reject(this.failure);
      this.pending.set(job.id, { resolve, reject });
      this.worker.postMessage(job);
    });
  }

  async close(): Promise<void> {
    this.worker.postMessage('close');
    await this.worker.terminate();
  }
}

/** Requests per second of a load run. */
export function rate(result: LoadResult): number {
  return result.completed / (result.elapsedMs / 1000);
}

export function failureCount(result: LoadResult): number {
  return Object.values(result.failures).reduce((sum, n) => sum + n, 0);
}
