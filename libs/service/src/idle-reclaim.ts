import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * How often the event loop's utilization is read. Short, because the collection is synchronous:
 * a load that starts late in a check's window can leave it under the quiet mark, and the process
 * then stops for a full collection as the load begins. (The live-path bench, when each of its
 * rates followed seconds of quiet, logged such collections in those gaps and read a p99 of
 * 77–361 ms at 500/s; which requests met one was not traced.) A 500 ms window makes it four times
 * less likely, and a check costs microseconds.
 */
const CHECK_EVERY_MS = 500;
/** Below this share of busy time over a check, the process counts as quiet. */
const QUIET_UTILIZATION = 0.1;
/** Quiet checks in a row before the heap is collected: 4 s of quiet (the load is over, not paused). */
const QUIET_CHECKS = 8;
/** Collect only when the V8 heap holds this many times what it held when last collected. */
const GROWTH = 1.5;

/**
 * Gives memory a load took back once the load is over: when the process has been quiet for 4 s
 * (eight 500 ms checks in a row under 10% event-loop utilization) and its V8 heap is half as
 * large again as after the last full collection (or none has run yet), it runs one full
 * collection.
 *
 * Why: under overload the gateway's heap grew from ~60 to ~230 MiB, almost all of it garbage
 * (a heap snapshot, which collects first, found 35 MiB live), and 20 s after the load it was
 * still there: V8 collects when it allocates, and a quiet process allocates little, so its heap
 * keeps the size of its busiest moment (tools/bench/overload.mjs: RSS 2.9× what it was
 * before the load). One collection when the work is done returns the heap's pages to the system.
 * "Quiet" is the event loop's utilization, not "no request in flight", so the rule is the same for
 * every service and a scraped, heart-beating process still qualifies.
 */
export function reclaimWhenIdle(log: (line: string) => void): () => void {
  const gc = exposeGc();
  if (gc === undefined) return () => undefined;
  // Nothing collected yet: the first quiet spell after start collects, so the mark for later ones
  // is the heap after a collection. The heap's size at start-up held the start-up's garbage (60–70
  // MiB reserved of ~35 live), and 1.5× that was more than a loaded service's heap reached once its
  // young generation was capped (libs/launcher/src/service-node-flags.ts): nothing was collected.
  let collectedAt = 0;
  let quiet = 0;
  let last: EventLoopUtilization = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    quiet = performance.eventLoopUtilization(now, last).utilization < QUIET_UTILIZATION ? quiet + 1 : 0;
    last = now;
    const before = getHeapStatistics().total_heap_size;
    if (quiet < QUIET_CHECKS || before < GROWTH * collectedAt) return;
    gc(LAST_RESORT);
    collectedAt = getHeapStatistics().total_heap_size;
    quiet = 0;
    log(`quiet after load: heap collected, ${mib(before)} → ${mib(collectedAt)} MiB`);
  }, CHECK_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * A full collection that also gives the freed pages back (V8's `CollectAllAvailableGarbage`, as
 * on a low-memory notification): a plain `gc()` left the heap at 212 of 354 MiB, this one at what
 * is live (measured on Node 24: 134 → 6 MiB of heap, RSS 204 → 59 MiB).
 */
const LAST_RESORT = { type: 'major', execution: 'sync', flavor: 'last-resort' } as const;

type Gc = (options: typeof LAST_RESORT) => void;

/** V8's collector, which Node exposes only behind a flag that can be set at run time. */
function exposeGc(): Gc | undefined {
  const exposed = (globalThis as { gc?: Gc }).gc;
  if (typeof exposed === 'function') return exposed;
  try {
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as Gc;
  } catch {
    return undefined;
  }
}

function mib(bytes: number): string {
  return (bytes / 2 ** 20).toFixed(0);
}
