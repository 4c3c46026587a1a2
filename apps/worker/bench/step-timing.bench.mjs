// Step-timing error of the real-time worker:  npm run build && node apps/worker/bench/step-timing.bench.mjs [--seconds 10]
// 64 instances in one process, all busy (qwen3-14b, timeScale 1): the worker stage's instances
// driven by the worker's RealTimeWakeUps, as the service drives them. p50/p99 of |actual −
// modelled| end of each step. Baseline in the same run: the same engines driven by one setTimeout
// loop per instance (no spin, no drift correction).
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { parse } from 'yaml';
import { micros } from '@sluice/contracts';
import { LatencyProfileSchema, VllmEngine, createLatencyModel } from '@sluice/engine';
import { WorkerStage } from '@sluice/stages';
import { RealTimeWakeUps } from '../dist/real-time-wake-ups.js';

const seconds = Number(process.argv[process.argv.indexOf('--seconds') + 1]) || 10;
const INSTANCES = 64;
const profileUrl = new URL('../profiles/qwen3-14b.yaml', import.meta.resolve('@sluice/engine'));
const profile = LatencyProfileSchema.parse(parse(readFileSync(profileUrl, 'utf8')));
const model = createLatencyModel(profile.latencyModel, profile);
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * (s.length - 1)))] ?? NaN;
};
/** A request that keeps its instance decoding for the whole run. */
const longRequest = (id) => ({ id, inputTokens: 512, maxTokens: 30000, blockHashes: [], priority: 0, workerArrivalUs: 0, admittedUs: undefined, cachedTokens: 0, firstTokenUs: undefined, lastTokenUs: undefined, generated: 0, gone: false });

async function withWorkerScheduler() {
  const errors = [];
  const wakeUps = new RealTimeWakeUps(() => performance.now() * 1000, 1, (lateRealUs) => errors.push(Math.abs(lateRealUs)));
  // The worker's effects minus the bus: only the wake-ups do anything.
  const nothing = () => undefined;
  const effects = {
    received: nothing, accepted: nothing, hung: nothing, admitted: nothing, preempted: nothing, tokens: nothing, completed: nothing, failed: nothing,
    cancelled: nothing, done: nothing, stepEnded: nothing, kv: nothing, load: nothing, lifecycle: nothing, wakeWorker: nothing,
    wakeInstance: (instance, kind, atUs) => wakeUps.wakeAt(instance, kind, atUs),
  };
  const settings = { workerId: 'bench', instances: INSTANCES, model: 'qwen3-14b', latency: model, totalKvBlocks: profile.totalKvBlocks, maxModelLen: profile.maxModelLen, maxRunning: 256, maxBatchTokens: 2048, scheduler: 'fcfs', heartbeatIntervalUs: micros(1e9), loadIntervalUs: micros(1e9), publishOnChange: false };
  const worker = new WorkerStage(settings, effects, () => Math.random);
  worker.instances.forEach((instance, i) => {
    for (let r = 0; r < 8; r++) instance.accept(longRequest(`i${i}-r${r}`), wakeUps.nowUs());
  });
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  wakeUps.stop();
  return errors;
}

async function withTimeouts() {
  const errors = [];
  let running = true;
  for (let i = 0; i < INSTANCES; i++) {
    const engine = new VllmEngine({ model, totalKvBlocks: profile.totalKvBlocks, maxModelLen: profile.maxModelLen });
    for (let r = 0; r < 8; r++) engine.enqueue(longRequest(`i${i}-r${r}`), 0);
    const loop = () => {
      if (!running) return;
      const now = performance.now() * 1000;
      const step = engine.canStep(now) ? engine.step(now) : undefined;
      const wait = step ? step.durationUs : (engine.nextReadyUs() ?? now + 1000) - now;
      setTimeout(() => {
        if (step) errors.push(Math.abs(performance.now() * 1000 - now - step.durationUs));
        loop();
      }, Math.max(0, wait / 1000));
    };
    loop();
  }
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  running = false;
  return errors;
}

const baseline = await withTimeouts();
const ours = await withWorkerScheduler();
const f = (us) => `${(us / 1000).toFixed(3)} ms`;
console.log(`step timing error, ${INSTANCES} busy instances, timeScale 1, ${seconds} s each (node ${process.version})`);
console.log(`per-instance setTimeout (baseline):   p50 ${f(pct(baseline, 50))}  p99 ${f(pct(baseline, 99))}  (${baseline.length} steps)`);
console.log(`RealTimeWakeUps (one timer + spin):   p50 ${f(pct(ours, 50))}  p99 ${f(pct(ours, 99))}  (${ours.length} steps)  p99 ${(pct(ours, 99) / pct(baseline, 99)).toFixed(2)}× baseline`);
