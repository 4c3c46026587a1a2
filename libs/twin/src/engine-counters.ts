import type { WorkerProcess } from './worker-process.js';

/** What one instance's engine counted over a twin run (libs/report's EngineInstanceCounters fits it). */
export interface TwinEngineCounters {
  readonly instance: string;
  readonly preemptions: number;
  /** Requests refused KV blocks in a step, once a step (the engine's counter). */
  readonly kvAllocationFailures: number;
  /** The engine's own: KV blocks hit / blocks looked up or allocated, decode blocks counted as misses (0 if none). */
  readonly cacheHitRate: number;
}

/**
 * Each instance's counters at the end of the run, in process and rank order, instances of killed
 * processes included (their engines keep what they counted). Read after the agenda has drained, so
 * nothing here touches the run: the records, and their fingerprint, are the same with or without it.
 */
export function twinEngineCounters(processes: readonly WorkerProcess[]): TwinEngineCounters[] {
  return processes.flatMap((process) =>
    process.stage.instances.map((core) => {
      const { preemptions, kvAllocationFailures, cacheHitRate } = core.engineSnapshot();
      return { instance: core.instanceId, preemptions, kvAllocationFailures, cacheHitRate };
    }),
  );
}
