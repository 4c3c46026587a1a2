import { ALL_WORKERS_BUSY_BODY, micros } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import type { ClusterView, InstanceView } from '../../cluster-view.js';
import { instanceView, policyRequest } from '../../testing/builders.js';
import { busyThresholdsFor } from '../../busy/busy-thresholds.js';
import { BusyThresholdParamsSchema, createBusyThreshold } from './busy-threshold.policy.js';

const QWEN = 'qwen3-14b';
const LLAMA = 'llama-3.1-8b';

/** An instance with 1000 KV blocks, so activeDecodeBlocks/1000 is the decode fraction. */
const inst = (instanceId: string, load: Partial<InstanceView> = {}): InstanceView =>
  instanceView({ instanceId, workerId: instanceId, model: QWEN, totalKvBlocks: 1_000, ...load });
const view = (...instances: InstanceView[]): ClusterView => ({ instances });
const qwen = policyRequest({ model: QWEN });

describe('busy-threshold', () => {
  it('decode threshold alone: busy above the fraction (not at it); rejects only when every worker is', () => {
    const policy = createBusyThreshold({ activeDecodeBlocksThreshold: 0.5 });
    // w1 at 600/1000 = 0.6 > 0.5 busy; w2 at 0.5 exactly, not busy.
    expect(policy.decide(qwen, view(inst('w1', { activeDecodeBlocks: 600 }), inst('w2', { activeDecodeBlocks: 500 })), micros(0))).toEqual({
      admit: true,
      inputs: { busy_workers: 1, total_workers: 2, active_decode_blocks_threshold: 0.5 },
    });
    // w2 at 0.501: both busy.
    expect(policy.decide(qwen, view(inst('w1', { activeDecodeBlocks: 600 }), inst('w2', { activeDecodeBlocks: 501 })), micros(0))).toEqual({
      admit: false,
      reason: 'all_workers_busy',
      message: 'Service temporarily unavailable: All workers are busy, please retry later',
      inputs: { busy_workers: 2, total_workers: 2, active_decode_blocks_threshold: 0.5 },
    });
    // Prefill load is not looked at without a prefill threshold.
    expect(policy.decide(qwen, view(inst('w1', { activePrefillTokens: 1e6 })), micros(0)).admit).toBe(true);
  });

  it('prefill threshold alone: busy above the token count', () => {
    const policy = createBusyThreshold({ activePrefillTokensThreshold: 1_000 });
    expect(policy.decide(qwen, view(inst('w1', { activePrefillTokens: 1_000 })), micros(0))).toEqual({
      admit: true,
      inputs: { busy_workers: 0, total_workers: 1, active_prefill_tokens_threshold: 1_000 },
    });
    expect(policy.decide(qwen, view(inst('w1', { activePrefillTokens: 1_001 })), micros(0))).toMatchObject({ admit: false, reason: 'all_workers_busy' });
    // Decode load is not looked at without a decode threshold.
    expect(policy.decide(qwen, view(inst('w1', { activeDecodeBlocks: 1_000 })), micros(0)).admit).toBe(true);
  });

  it('either threshold makes an instance busy when both are set', () => {
    const policy = createBusyThreshold({ activeDecodeBlocksThreshold: 0.9, activePrefillTokensThreshold: 100 });
    const byPrefill = inst('w1', { activePrefillTokens: 101 });
    const byDecode = inst('w2', { activeDecodeBlocks: 901 });
    expect(policy.decide(qwen, view(byPrefill, byDecode), micros(0))).toEqual({
      admit: false,
      reason: 'all_workers_busy',
      message: ALL_WORKERS_BUSY_BODY.message,
      inputs: { busy_workers: 2, total_workers: 2, active_decode_blocks_threshold: 0.9, active_prefill_tokens_threshold: 100 },
    });
  });

  it('a worker with several data-parallel ranks is busy only when all its ranks are', () => {
    const policy = createBusyThreshold({ activeDecodeBlocksThreshold: 0.5 });
    const rank0 = (blocks: number) => inst('w1-r0', { workerId: 'w1', rank: 0, activeDecodeBlocks: blocks });
    const rank1 = (blocks: number) => inst('w1-r1', { workerId: 'w1', rank: 1, activeDecodeBlocks: blocks });
    expect(policy.decide(qwen, view(rank0(900), rank1(100)), micros(0))).toMatchObject({ admit: true, inputs: { busy_workers: 0, total_workers: 1 } });
    expect(policy.decide(qwen, view(rank0(100), rank1(900)), micros(0))).toMatchObject({ admit: true, inputs: { busy_workers: 0, total_workers: 1 } });
    expect(policy.decide(qwen, view(rank0(900), rank1(900)), micros(0))).toMatchObject({
      admit: false,
      reason: 'all_workers_busy',
      inputs: { busy_workers: 1, total_workers: 1 },
    });
    // With a second, idle worker the busy one does not make the cluster busy.
    expect(policy.decide(qwen, view(rank0(900), rank1(900), inst('w2')), micros(0))).toMatchObject({ admit: true, inputs: { busy_workers: 1, total_workers: 2 } });
  });

  it('with no threshold set nothing is ever busy', () => {
    const policy = createBusyThreshold({});
    const slammed = inst('w1', { activeDecodeBlocks: 1_000, activePrefillTokens: 1e9 });
    expect(policy.decide(qwen, view(slammed), micros(0))).toEqual({ admit: true, inputs: { busy_workers: 0, total_workers: 1 } });
  });

  it('admits when no worker serves the model (the router answers no_worker)', () => {
    const policy = createBusyThreshold({ activeDecodeBlocksThreshold: 0 });
    expect(policy.decide(qwen, view(), micros(0))).toMatchObject({ admit: true, inputs: { busy_workers: 0, total_workers: 0 } });
  });

  it('a per-model override beats the top-level value, field by field', () => {
    const params = {
      activeDecodeBlocksThreshold: 0.9,
      activePrefillTokensThreshold: 100,
      models: { [QWEN]: { activeDecodeBlocksThreshold: 0.5 } },
    };
    const policy = createBusyThreshold(params);
    // qwen at 0.6: busy under its own 0.5 (the top-level 0.9 would not make it busy).
    expect(policy.decide(qwen, view(inst('q1', { activeDecodeBlocks: 600 })), micros(0))).toMatchObject({
      admit: false,
      inputs: { active_decode_blocks_threshold: 0.5, active_prefill_tokens_threshold: 100 },
    });
    // llama has no override: 0.6 is under the top-level 0.9.
    const llama = inst('l1', { model: LLAMA, activeDecodeBlocks: 600 });
    expect(policy.decide(policyRequest({ model: LLAMA }), view(llama), micros(0))).toMatchObject({ admit: true, inputs: { active_decode_blocks_threshold: 0.9 } });

    const parsed = BusyThresholdParamsSchema.parse(params);
    expect(busyThresholdsFor(parsed, QWEN)).toEqual({ activeDecodeBlocksThreshold: 0.5, activePrefillTokensThreshold: 100 });
    expect(busyThresholdsFor(parsed, LLAMA)).toEqual({ activeDecodeBlocksThreshold: 0.9, activePrefillTokensThreshold: 100 });
    expect(busyThresholdsFor(BusyThresholdParamsSchema.parse({}), QWEN)).toEqual({});
    // An override alone, with nothing at the top level.
    const onlyOverride = BusyThresholdParamsSchema.parse({ models: { [LLAMA]: { activePrefillTokensThreshold: 7 } } });
    expect(busyThresholdsFor(onlyOverride, LLAMA)).toEqual({ activePrefillTokensThreshold: 7 });
    expect(busyThresholdsFor(onlyOverride, QWEN)).toEqual({});
    // Inherited object keys are not models.
    expect(busyThresholdsFor(onlyOverride, 'toString')).toEqual({});
  });

  it('ignores instances of other models', () => {
    const policy = createBusyThreshold({ activeDecodeBlocksThreshold: 0.5 });
    const busyQwen = inst('q1', { activeDecodeBlocks: 900 });
    const idleLlama = inst('l1', { model: LLAMA });
    expect(policy.decide(qwen, view(busyQwen, idleLlama), micros(0))).toMatchObject({
      admit: false,
      reason: 'all_workers_busy',
      inputs: { busy_workers: 1, total_workers: 1 },
    });
  });

  it('validates thresholds: decode within 0–1, prefill a non-negative integer, no unknown keys', () => {
    expect(BusyThresholdParamsSchema.parse({})).toEqual({ models: {} });
    for (const bad of [
      { activeDecodeBlocksThreshold: 1.5 },
      { activeDecodeBlocksThreshold: -0.1 },
      { activePrefillTokensThreshold: -1 },
      { activePrefillTokensThreshold: 1.5 },
      { models: { [QWEN]: { activeDecodeBlocksThreshold: 2 } } },
      { models: { [QWEN]: { typo: 1 } } },
      { threshold: 1 },
    ]) {
      expect(BusyThresholdParamsSchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });
});
