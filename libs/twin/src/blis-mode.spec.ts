import { loadConfig, loadProfile } from '@sluice/config';
import type { WorkloadRequest } from '@sluice/workload';
import { describe, expect, it } from 'vitest';
import { ZERO_HOP_LATENCIES } from './hops.js';
import { simulate } from './twin.js';

/**
 * BLIS parity mode's routing signals (docs/behaviour.md §1) against sluice's freshest snapshot
 * setting (published on every change, visible at once), both without hop latencies. qwen3-14b:
 * a 16-token prompt waits 8891 µs in its queueing delay; its prefill step takes 14209 µs.
 *
 *   r0 (t = 0, 1 output token)   → X (a tie: Go's Intn(2) with seed 42 XOR fnv1a64("router") gives 0: twin-r0)
 *   r1 (t = 0, 100 output tokens) → Y (X has r0 in flight)
 *   X runs r0's only step in [8891, 23100): r0 completes at its start; Y runs r1 from 8891 on.
 *   r2 (t = 10 ms): snapshots X = 0 + 0 + in flight 1 (r0's done comes at 23100) = 1, Y = 1 + 1 = 2 → X;
 *                   live      X = 0 (in flight dropped at the step's start),       Y = 2 → X.
 *   r3 (t = 11 ms): snapshots X = queue 1 (r2, in its delay) + in flight 2 = 3, Y = 2 → Y;
 *                   live      X = queue 0 (r2 still in its delay until 18891) + in flight 1 = 1, Y = 2 → X.
 */
const profile = loadProfile(loadConfig());

function req(index: number, arrivalMs: number, output: number): WorkloadRequest {
  return {
    index,
    clientId: `c${index}`,
    fairnessId: 't0',
    sloClass: 'standard',
    arrivalMs,
    inputTokens: Uint32Array.from({ length: 16 }, (_, i) => (index + 1) * 1_000_000 + i),
    maxTokens: output,
  };
}

const workload = [req(0, 0, 1), req(1, 0, 100), req(2, 10, 10), req(3, 11, 10)];
const base = ['--worker.instances=2', '--router.policy=least-loaded', '--worker.loadIntervalMs=0', '--router.snapshotRefreshIntervalMs=0'];
const servedBy = (argv: readonly string[]) =>
  simulate(workload, { config: loadConfig({ argv: [...base, ...argv] }), profile, hops: ZERO_HOP_LATENCIES, seed: 42, checkInvariants: true }).records.map((r) => r.instance);

describe('twin, BLIS parity mode: routing signals read live', () => {
  it('sends r3 where live signals say (X), not where the freshest snapshots say (Y)', () => {
    const live = servedBy(['--worker.compat=blis']);
    expect(live).toEqual(['twin-r0', 'twin-r1', 'twin-r0', 'twin-r0']);
    const snapshots = servedBy([]);
    expect(snapshots[2]).toBe(snapshots[0]);
    expect(snapshots[3]).toBe(snapshots[1]);
  });

  it('serves every request to the end, with the same records run after run', () => {
    const config = loadConfig({ argv: [...base, '--worker.compat=blis'] });
    const once = simulate(workload, { config, profile, checkInvariants: true });
    expect(once.records.map((r) => r.outputTokens)).toEqual(workload.map((w) => w.maxTokens));
    expect(JSON.stringify(simulate(workload, { config, profile }).records)).toBe(JSON.stringify(once.records));
  });
});

describe('twin, BLIS parity mode under KV pressure', () => {
  it('preempts, regenerates and still gives every request exactly its output tokens, invariants checked', () => {
    const busy = Array.from({ length: 24 }, (_, i) => req(i, i * 2, 30 + (i % 7) * 9));
    const config = loadConfig({ argv: ['--worker.instances=2', '--router.policy=least-loaded', '--worker.kvBlocks=12', '--worker.compat=blis'] });
    const { records, engine } = simulate(busy, { config, profile, checkInvariants: true });
    expect(records.map((r) => r.outputTokens)).toEqual(busy.map((w) => w.maxTokens));
    expect(engine.reduce((n, e) => n + e.preemptions, 0)).toBeGreaterThan(0);
  });
});

describe("twin, BLIS parity mode: BLIS's end beside the wall clock's", () => {
  // libs/engine blis-compat.spec.ts's case on one instance of 4 KV blocks, with zero hops: a runs
  // to the end without a restart, b is preempted twice (steps 17 and 19). First tokens at
  // 8891 + 14840 = 23731 µs. a: BLIS's end = 23731 + 259558 = 283289 = its wall-clock end.
  // b: wall-clock end 555993; BLIS's = 23731 + 19·13605 (its decode steps after the last restart) = 282226.
  const pair = [req(0, 0, 20), req(1, 0, 20)];
  const run = (argv: readonly string[]) =>
    simulate(pair, { config: loadConfig({ argv: ['--worker.instances=1', '--worker.kvBlocks=4', ...argv] }), profile, hops: ZERO_HOP_LATENCIES, checkInvariants: true }).records;

  it('records BLIS last_chunk_time (first token + ITL sum after the last preemption) and keeps endMs as the wall clock', () => {
    const [a, b] = run(['--worker.compat=blis']);
    expect(a).toMatchObject({ firstTokenMs: 23.731, endMs: 283.289, blisLastChunkMs: 283.289 });
    expect(b).toMatchObject({ firstTokenMs: 23.731, endMs: 555.993, blisLastChunkMs: 282.226 });
  });

  it('records no BLIS end by default', () => {
    expect(run([]).some((r) => 'blisLastChunkMs' in r)).toBe(false);
  });
});

describe("twin, BLIS parity mode: weighted routing's queue-depth scorer reads the queue alone", () => {
  // prefix-affinity:2, queue-depth:1, kv-utilization:1 on 2 instances; 16-token prompts (one block)
  // of 100 tokens. r0, r1, r2 share prompt A, r3 and r4 prompt B, r5 has its own:
  //   r0 (t = 0) → P, whichever (all tied); r1 (1 ms), r2 (2 ms) → P (prefix 0.5 outweighs the rest).
  //   r3 (10 ms) → Q: P holds r0 running and r1 past its delay, Q nothing, in either reading.
  //   r4 (12 ms) → Q (prefix). Q's first step runs r3 in [18.891, 33.100) ms, so r4, ready at
  //   20.891 ms, waits in Q's queue; P's step at 23.100 ms took r1 and r2 into its batch.
  //   r5 (26 ms): P has queue 0, batch 3, in flight 3; Q queue 1, batch 1, in flight 2.
  //     BLIS (queue alone): P 0.25·1 + 0.25·(1 − kv) beats Q 0 + 0.25·(1 − kv) → P.
  //     default (effective load P 6, Q 4): Q 0.25·1 + 0.25·(1 − kv) beats P 0 + 0.25·(1 − kv) → Q.
  const prompt = (tag: number) => Uint32Array.from({ length: 16 }, (_, i) => tag * 1_000_000 + i);
  const at = (index: number, arrivalMs: number, tag: number): WorkloadRequest => ({ ...req(index, arrivalMs, 100), inputTokens: prompt(tag) });
  const workload = [at(0, 0, 1), at(1, 1, 1), at(2, 2, 1), at(3, 10, 2), at(4, 12, 2), at(5, 26, 3)];
  const served = (argv: readonly string[]) => {
    const config = loadConfig({ argv: ['--worker.instances=2', '--router.policy=weighted', '--router.policies.weighted.weights=prefix-affinity:2,queue-depth:1,kv-utilization:1', '--worker.loadIntervalMs=0', '--router.snapshotRefreshIntervalMs=0', ...argv] });
    return simulate(workload, { config, profile, hops: ZERO_HOP_LATENCIES, seed: 42, checkInvariants: true }).records.map((r) => r.instance);
  };

  it('sends r5 to the instance with the shorter queue (P), where the default sends it to the less loaded (Q)', () => {
    const blis = served(['--worker.compat=blis']);
    expect(blis.slice(0, 5)).toEqual([blis[0], blis[0], blis[0], blis[3], blis[3]]);
    expect(blis[3]).not.toBe(blis[0]);
    expect(blis[5]).toBe(blis[0]);
    const byDefault = served([]);
    expect(byDefault.slice(0, 5)).toEqual([byDefault[0], byDefault[0], byDefault[0], byDefault[3], byDefault[3]]);
    expect(byDefault[5]).toBe(byDefault[3]);
  });
});
