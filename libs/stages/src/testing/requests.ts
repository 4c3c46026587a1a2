import { micros, type LifecycleEvent, type LoadSnapshot, type Micros, type StageTimings } from '@sluice/contracts';
import type { StageRequest } from '../stage-request.js';

/** A request as the stages read it; every field has a dull default, a spec names what it is about. */
export function stageRequest(overrides: Partial<StageRequest> & { readonly id: string }): StageRequest & { timings: StageTimings } {
  return {
    model: 'qwen3-14b',
    inputTokens: 512,
    maxTokens: 64,
    priority: 3,
    sloClass: 'standard',
    fairnessId: 'default',
    blockHashes: [],
    bodyBytes: 1_000,
    arrivalUs: micros(0),
    deadlineUs: micros(60_000_000),
    timings: {},
    ...overrides,
  };
}

const identity = (instanceId: string) => ({ instanceId, workerId: `w-${instanceId}`, rank: 0, model: 'qwen3-14b', totalKvBlocks: 1_000 });

export function registered(instanceId: string, atUs: Micros = micros(0)): LifecycleEvent {
  return { ...identity(instanceId), type: 'register', atUs };
}

export function lifecycle(instanceId: string, type: LifecycleEvent['type'], atUs: Micros): LifecycleEvent {
  return { ...identity(instanceId), type, atUs };
}

/** An instance's load snapshot taken at `atUs`: idle unless the overrides say otherwise. */
export function snapshot(instanceId: string, atUs: Micros, overrides: Partial<LoadSnapshot> = {}): LoadSnapshot {
  return {
    instanceId,
    workerId: `w-${instanceId}`,
    rank: 0,
    atUs,
    queueDepth: 0,
    batchSize: 0,
    inFlight: 0,
    kvUtilization: 0,
    freeKvBlocks: 1_000,
    totalKvBlocks: 1_000,
    activePrefillTokens: 0,
    activeDecodeBlocks: 0,
    cacheHitRate: 0,
    preemptions: 0,
    ...overrides,
  };
}

/** µs from ms, for specs that read in ms. */
export const ms = (value: number): Micros => micros(value * 1_000);
