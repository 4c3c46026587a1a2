import { loadConfig, loadProfile } from '@sluice/config';
import { createLatencyModel } from '@sluice/engine';
import type { RunRecord } from '@sluice/metrics';
import type { WorkloadRequest } from '@sluice/workload';
import { describe, expect, it } from 'vitest';
import { DEFAULT_HOP_LATENCIES, type HopLatencies } from './hops.js';
import { simulate } from './twin.js';

/**
 * Where the twin's hop latencies come from: an explicit `hops` option, else the config's
 * `twin.hops`, else DEFAULT_HOP_LATENCIES. Engine figures for one 512-token prompt on qwen3-14b
 * (full-precision profile, truncated to whole µs):
 *   queueing delay α0 + α1·512 = trunc(8888.089034078324 + 0.18488961143592303·512) = 8982
 *   prefill step   β0 + β1·512 = trunc(13578.186662538783 + 39.44465647189146·512)  = 33773
 */
const QUEUE_DELAY_US = 8982;
const PREFILL_US = 33773;
const DIGITS = 9;

const ALL_HOPS = ['gatewayUs', 'transitUs', 'admissionUs', 'flowUs', 'routerUs', 'returnUs'] as const;
const zeroHopFlags = ALL_HOPS.map((key) => `--twin.hops.${key}=0`);

const onePrompt: WorkloadRequest = {
  index: 0,
  clientId: 'c0',
  fairnessId: 't0',
  sloClass: 'standard',
  arrivalMs: 0,
  inputTokens: Uint32Array.from({ length: 512 }, (_, i) => i),
  maxTokens: 4,
};

function ttftUs(argv: readonly string[], hops?: HopLatencies): number {
  const config = loadConfig({ argv: ['--worker.instances=1', ...argv] });
  const [r] = simulate([onePrompt], { config, profile: loadProfile(config), checkInvariants: true, ...(hops ? { hops } : {}) }).records as [RunRecord];
  expect(r.outcome).toBe('completed');
  return (r.firstTokenMs! - r.arrivalMs) * 1000;
}

describe('twin: hop latencies from the config', () => {
  it('the config defaults are DEFAULT_HOP_LATENCIES (config cannot import the twin: this keeps the two equal)', () => {
    expect(loadConfig().twin.hops).toEqual(DEFAULT_HOP_LATENCIES);
  });

  it('the engine facts below are as hand-computed', () => {
    const profile = loadProfile(loadConfig());
    const latency = createLatencyModel(profile.latencyModel, profile);
    expect(latency.queueingDelayUs(512)).toBe(QUEUE_DELAY_US);
    expect(latency.stepTimeUs(512, 0)).toBe(PREFILL_US);
    expect(latency.outputTokenDelayUs()).toBe(0);
  });

  it('with every hop zero, a lone request\'s TTFT is the queueing delay plus one prefill step: 42 755 µs', () => {
    expect(ttftUs(zeroHopFlags)).toBeCloseTo(QUEUE_DELAY_US + PREFILL_US, DIGITS - 3);
  });

  it('each hop configured adds exactly its share: gateway, four transits, three stages, the way back', () => {
    const hops = { gatewayUs: 1_000, transitUs: 200, admissionUs: 30, flowUs: 40, routerUs: 50, returnUs: 700 };
    const flags = Object.entries(hops).map(([key, us]) => `--twin.hops.${key}=${us}`);
    expect(ttftUs(flags)).toBeCloseTo(1_000 + 4 * 200 + 30 + 40 + 50 + QUEUE_DELAY_US + PREFILL_US + 700, DIGITS - 3);
  });

  it('an explicit hops option (--hop-latency-from) wins over the config\'s', () => {
    expect(ttftUs(zeroHopFlags, DEFAULT_HOP_LATENCIES)).toBeCloseTo(ttftUs([]), DIGITS - 3);
    expect(ttftUs([])).toBeCloseTo(5_100 + QUEUE_DELAY_US + PREFILL_US + 1_600, DIGITS - 3); // 49 455 µs
  });
});
