// Engine throughput, pure code, no I/O:  npm run build && node libs/engine/bench/engine.bench.mjs
// 1. steps per second with a full batch of 256 decoding requests;
// 2. requests per second through one engine (512-token prompts, 64 output tokens, back-to-back steps).
// Each figure is printed against what real time needs: a qwen3-14b decode step models 13.6 ms, so one
// instance in real time needs ~74 steps/s and a 64-instance worker process ~4 700 steps/s.
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { parse } from 'yaml';
import { LatencyProfileSchema, VllmEngine, createLatencyModel } from '../dist/index.js';

const profile = LatencyProfileSchema.parse(parse(readFileSync(new URL('../profiles/qwen3-14b.yaml', import.meta.url), 'utf8')));
const model = createLatencyModel(profile.latencyModel, profile);
// Every request's prompt is its own: block ids are never shared.
let nextBlockId = 0;
const hashes = (blocks) => Array.from({ length: blocks }, () => nextBlockId++);
const request = (id, input = 512, output = 64) => ({ id, inputTokens: input, maxTokens: output, blockHashes: hashes(Math.floor(input / 16)), priority: 0 });

// 1. full-batch decode steps
{
  const engine = new VllmEngine({ model, totalKvBlocks: profile.totalKvBlocks, maxModelLen: profile.maxModelLen });
  for (let i = 0; i < 256; i++) engine.enqueue(request(`r${i}`, 64, 4000), 0);
  let now = 1e7;
  while (engine.snapshot().batchSize < 256) now += engine.step(now).durationUs; // prefill everything
  const steps = 5000;
  const t = performance.now();
  for (let i = 0; i < steps; i++) now += engine.step(now).durationUs;
  const perSecond = steps / ((performance.now() - t) / 1000);
  console.log(`decode steps at batch 256:   ${perSecond.toFixed(0)} steps/s   ${(perSecond / 4700).toFixed(1)}× what a 64-instance process needs in real time`);
}

// 2. requests through one engine
{
  const engine = new VllmEngine({ model, totalKvBlocks: profile.totalKvBlocks, maxModelLen: profile.maxModelLen });
  const total = 20_000;
  let now = 0;
  let next = 0;
  let done = 0;
  const t = performance.now();
  while (done < total) {
    while (next < total && engine.snapshot().queueDepth < 64) engine.enqueue(request(`q${next++}`), now);
    if (engine.canStep(now)) {
      const result = engine.step(now);
      done += result.completed.length;
      now += result.durationUs;
    } else now = engine.nextReadyUs() ?? now + 1;
  }
  const seconds = (performance.now() - t) / 1000;
  const modelledSeconds = now / 1e6;
  console.log(`requests through one engine: ${(total / seconds).toFixed(0)} req/s   ${(modelledSeconds / seconds).toFixed(0)}× faster than the modelled GPU time (${modelledSeconds.toFixed(1)} s modelled in ${seconds.toFixed(2)} s)`);
}
