import { loadConfig, loadProfile } from '@sluice/config';
import type { RunRecord } from '@sluice/metrics';
import type { WorkloadRequest } from '@sluice/workload';
import { describe, expect, it } from 'vitest';
import { HopDraws, hopLatenciesOf, hopProfileOf, hopSamplesFromRecords, hopSamplesOf, medianSample, type HopSample } from './hop-profile.js';
import { simulate } from './twin.js';

/** A live record as `sluice run` writes one, with the stage timings its answer carried (ms). */
function liveRecord(id: string, ttftMs: number, timings: Record<string, number>): RunRecord {
  return { id, fairnessId: 't', sloClass: 'standard', arrivalMs: 100, endMs: 100 + ttftMs + 50, firstTokenMs: 100 + ttftMs, outputTokens: 4, outcome: 'completed', status: 200, priority: 0, attempts: 1, timings };
}

const TIMED = { gatewayInMs: 1, toAdmissionMs: 0.5, admissionMs: 0.04, toFlowMs: 0.6, flowQueueMs: 2, toRouterMs: 0.7, routingMs: 0.15, toWorkerMs: 0.8, workerQueueMs: 9, prefillMs: 28.7, decodeMs: 50 };

describe('hop profile: one live request, one whole path', () => {
  it('takes each timed hop as measured and the rest of the TTFT as the way back', () => {
    // Timed parts up to the first token: 1 + 0.5 + 0.04 + 0.6 + 2 + 0.7 + 0.15 + 0.8 + 9 + 28.7 = 43.49 ms;
    // a client TTFT of 47 ms leaves 3.51 ms for the client's send and the first token's way back.
    const [sample] = hopSamplesFromRecords([liveRecord('r7', 47, TIMED)]);
    expect(sample).toEqual({ position: 7, gatewayUs: 1000, toAdmissionUs: 500, admissionUs: 40, toFlowUs: 600, toRouterUs: 700, routerUs: 150, toWorkerUs: 800, returnUs: 3510 });
  });

  it('puts the client\'s own send, when the gateway timed it, on the way in: it moves the request\'s arrival', () => {
    // 43.49 ms timed as above plus 2.5 ms of the client's send: 47 ms leaves 1.01 ms for the way back.
    const [sample] = hopSamplesFromRecords([liveRecord('r3', 47, { ...TIMED, clientSendMs: 2.5 })]);
    expect(sample).toMatchObject({ gatewayUs: 3500, returnUs: 1010 });
  });

  it('leaves out requests not served or without the per-hop timings (an older gateway)', () => {
    const { toWorkerMs: _none, ...withoutHop } = TIMED;
    const failed = { ...liveRecord('r1', 47, TIMED), outcome: 'failed' } as RunRecord;
    expect(hopSamplesFromRecords([failed, liveRecord('r2', 47, withoutHop)])).toEqual([]);
  });

  it('a path: the four transits as measured, the untimed ones (done events, cancels) at their mean', () => {
    const sample: HopSample = { gatewayUs: 1000, toAdmissionUs: 400, admissionUs: 40, toFlowUs: 600, toRouterUs: 800, routerUs: 150, toWorkerUs: 1000, returnUs: 3000 };
    expect(hopLatenciesOf(sample)).toEqual({
      gatewayUs: 1000,
      transitUs: 700, // (400 + 600 + 800 + 1000) / 4
      admissionUs: 40,
      flowUs: 0,
      routerUs: 150,
      returnUs: 3000,
      intoUs: { admission: 400, flow: 600, router: 800, worker: 1000 },
    });
  });

  it('a saved profile reads back to the same samples, in any column order; a bad value is named', () => {
    const samples = hopSamplesFromRecords([liveRecord('r0', 47, TIMED), liveRecord('r1', 60, TIMED)]).map(({ position: _p, ...s }) => s);
    const profile = hopProfileOf('laptop', 'live/report.json', samples);
    expect(hopSamplesOf(profile)).toEqual(samples);
    const reversed = { ...profile, columns: [...profile.columns].reverse(), samples: profile.samples.map((row) => [...row].reverse()) };
    expect(hopSamplesOf(reversed)).toEqual(samples);
    expect(() => hopSamplesOf({ ...profile, samples: [[1, 2, 3, 4, 5, 6, 7, -1]] })).toThrow('sample 0 has returnUs = -1');
    expect(() => hopSamplesOf({ ...profile, columns: profile.columns.slice(1) })).toThrow('no column gatewayUs');
  });

  it('draws: the same seed and place give the same path, whatever order the requests come in; paired takes the live counterpart\'s own', () => {
    const samples: HopSample[] = [10, 20, 30, 40, 50].map((ms, i) => ({ position: i, gatewayUs: 0, toAdmissionUs: 0, admissionUs: 0, toFlowUs: 0, toRouterUs: 0, routerUs: 0, toWorkerUs: 0, returnUs: ms * 1000 }));
    const a = new HopDraws(samples, 42);
    const forward = [0, 1, 2, 3, 4, 5, 6, 7].map((p) => a.of(p).returnUs);
    const backward = [7, 6, 5, 4, 3, 2, 1, 0].map((p) => new HopDraws(samples, 42).of(p).returnUs).reverse();
    expect(backward).toEqual(forward);
    expect(new Set(forward).size).toBeGreaterThan(1);
    // Another seed draws other paths.
    expect([0, 1, 2, 3, 4, 5, 6, 7].map((p) => new HopDraws(samples, 43).of(p).returnUs)).not.toEqual(forward);
    const paired = new HopDraws(samples, 42, true);
    expect([0, 1, 2, 3, 4].map((p) => paired.of(p).returnUs)).toEqual([10_000, 20_000, 30_000, 40_000, 50_000]);
    // The base (what belongs to no request) is each hop's median: 30 ms back.
    expect(a.base.returnUs).toBe(30_000);
    expect(medianSample(samples).returnUs).toBe(30_000);
  });
});

describe('twin: each request takes its drawn path', () => {
  /** Two identical lone prompts far apart in time; 512 tokens each: the engine's part is 8 982 + 33 773 µs (hops.spec.ts). */
  const prompt = (index: number, arrivalMs: number): WorkloadRequest => ({
    index,
    clientId: 'c0',
    fairnessId: 't0',
    sloClass: 'standard',
    arrivalMs,
    inputTokens: Uint32Array.from({ length: 512 }, (_, i) => i + index * 1000),
    maxTokens: 4,
  });
  const ENGINE_US = 8982 + 33773;

  it('paired: each TTFT is its path (gateway, four transits, admission, router, way back) plus the engine\'s part', () => {
    const path = (position: number, returnUs: number): HopSample => ({ position, gatewayUs: 1000, toAdmissionUs: 100, admissionUs: 40, toFlowUs: 200, toRouterUs: 300, routerUs: 150, toWorkerUs: 400, returnUs });
    const config = loadConfig({ argv: ['--worker.instances=1'] });
    const { records } = simulate([prompt(0, 0), prompt(1, 10_000)], { config, profile: loadProfile(config), checkInvariants: true, hopSamples: [path(0, 2_000), path(1, 9_000)], pairedHops: true });
    // 1000 + 100 + 40 + 200 + 300 + 150 + 400 = 2 190 µs on the way in, then the engine, then the way back.
    const ttftUs = records.map((r) => Math.round((r.firstTokenMs! - r.arrivalMs) * 1000));
    expect(ttftUs).toEqual([2_190 + ENGINE_US + 2_000, 2_190 + ENGINE_US + 9_000]);
    // Every token of a request comes back on its own path: the gaps between them are the engine's.
    const [a, b] = records as [RunRecord, RunRecord];
    const gaps = (r: RunRecord) => r.tokenTimesMs!.slice(1).map((t, i) => Math.round((t - r.tokenTimesMs![i]!) * 1000));
    expect(gaps(b)).toEqual(gaps(a));
    expect(b.endMs! - b.tokenTimesMs!.at(-1)!).toBeCloseTo(a.endMs! - a.tokenTimesMs!.at(-1)!, 6);
  });
});
