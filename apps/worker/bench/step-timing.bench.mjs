// Step-timing error of the real-time worker:  npm run build && node apps/worker/bench/step-timing.bench.mjs [--seconds 10]
// 64 instances in one process, all busy (qwen3-14b, timeScale 1), driven by the worker's StepScheduler:
// p50/p99 of |actual − modelled| step duration. Baseline in the same run: the same engines driven by
// one setTimeout loop per instance (no spin, no drift correction).
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { parse } from 'yaml';
import { LatencyProfileSchema, VllmEngine, createLatencyModel } from '@sluice/engine';
import { StepScheduler } from '../dist/step-scheduler.js';

const seconds = Number(process.argv[process.argv.indexOf('--seconds') + 1]) || 10;
const INSTANCES = 64;
const profileUrl = new URL('../profiles/qwen3-14b.yaml', import.meta.resolve('@sluice/engine'));
const profile = LatencyProfileSchema.parse(parse(readFileSync(profileUrl, 'utf8')));
const model = createLatencyModel(profile.latencyModel, profile);
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * (s.length - 1)))] ?? NaN;
};

function busyEngine(i) {
  const engine = new VllmEngine({ model, totalKvBlocks: profile.totalKvBlocks, maxModelLen: profile.maxModelLen });
  for (let r = 0; r < 8; r++) engine.enqueue({ id: `i${i}-r${r}`, inputTokens: 512, maxTokens: 30000, blockHashes: [], priority: 0 }, 0);
  return engine;
}

async function withScheduler() {
  const errors = [];
  const scheduler = new StepScheduler(() => performance.now() * 1000, 1, (e) => errors.push(e));
  for (let i = 0; i < INSTANCES; i++) {
    const engine = busyEngine(i);
    scheduler.wake({ canStep: (t) => engine.canStep(t), nextReadyUs: () => engine.nextReadyUs(), beginStep: (t) => engine.step(t), slowdown: 1, endStep: () => undefined });
  }
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  scheduler.stop();
  return errors;
}

async function withTimeouts() {
  const errors = [];
  let running = true;
  for (let i = 0; i < INSTANCES; i++) {
    const engine = busyEngine(i);
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
const ours = await withScheduler();
const f = (us) => `${(us / 1000).toFixed(3)} ms`;
console.log(`step timing error, ${INSTANCES} busy instances, timeScale 1, ${seconds} s each (node ${process.version})`);
console.log(`per-instance setTimeout (baseline): p50 ${f(pct(baseline, 50))}  p99 ${f(pct(baseline, 99))}  (${baseline.length} steps)`);
console.log(`StepScheduler (one timer + spin):   p50 ${f(pct(ours, 50))}  p99 ${f(pct(ours, 99))}  (${ours.length} steps)  p99 ${(pct(ours, 99) / pct(baseline, 99)).toFixed(2)}× baseline`);
