import { Worker } from 'node:worker_threads';
import type { RunReport } from '@sluice/metrics';
import type { TrialReply, TrialRequest, TrialWorkerData } from './trial-messages.js';
import type { TwinTrialJob } from './twin-trial.js';

interface Waiting {
  readonly request: TrialRequest;
  resolve(result: { summary: RunReport; durationMs: number }): void;
  reject(error: Error): void;
}

/**
 * A fixed set of worker threads running twin trials, one trial per thread at a time, queued in
 * submission order. Results are matched to their trial by id, so the order threads finish in
 * never changes which result belongs to which trial.
 */
export class TrialPool {
  private readonly idle: Worker[] = [];
  private readonly queue: Waiting[] = [];
  private readonly running = new Map<Worker, Waiting>();
  private nextId = 0;

  constructor(size: number, data: TrialWorkerData) {
    for (let i = 0; i < size; i++) {
      const worker = new Worker(new URL('./trial-worker.js', import.meta.url), { workerData: data });
      worker.on('message', (reply: TrialReply) => this.settle(worker, reply));
      worker.on('error', (error: Error) => this.fail(worker, error));
      this.idle.push(worker);
    }
  }

  run(job: TwinTrialJob): Promise<{ summary: RunReport; durationMs: number }> {
    return new Promise((resolve, reject) => {
      this.queue.push({ request: { id: this.nextId++, job }, resolve, reject });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    const all = [...this.idle, ...this.running.keys()];
    this.idle.length = 0;
    await Promise.all(all.map((w) => w.terminate()));
  }

  private dispatch(): void {
    while (this.idle.length > 0 && this.queue.length > 0) {
      const worker = this.idle.pop()!;
      const waiting = this.queue.shift()!;
      this.running.set(worker, waiting);
      worker.postMessage(waiting.request);
    }
  }

  private settle(worker: Worker, reply: TrialReply): void {
    const waiting = this.running.get(worker);
    this.running.delete(worker);
    this.idle.push(worker);
    if (waiting && waiting.request.id === reply.id) {
      if (reply.ok) waiting.resolve({ summary: reply.summary, durationMs: reply.durationMs });
      else waiting.reject(new Error(reply.message));
    }
    this.dispatch();
  }

  /** A thread that died takes its trial with it; the others go on. */
  private fail(worker: Worker, error: Error): void {
    const waiting = this.running.get(worker);
    this.running.delete(worker);
    waiting?.reject(error);
    if (this.idle.length === 0 && this.running.size === 0) {
      for (const queued of this.queue.splice(0)) queued.reject(new Error(`every trial thread has stopped (the last: ${error.message})`));
    }
  }
}
