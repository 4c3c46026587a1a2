import { micros } from '@sluice/contracts';
import { KV_TRANSFER_PROFILES } from '@sluice/engine';
import { describe, expect, it } from 'vitest';
import { workerHarness } from '../testing/worker-harness.js';
import { UNMARKED, type HeldRequest } from './held-request.js';
import type { InstanceCore } from './instance.core.js';

/**
 * A disaggregated worker: rank 0 prefills, rank 1 decodes, over the `nixl` link with Qwen3-14B's
 * 2.5 MiB blocks (qwen3-14b's step times: ../testing/worker-harness.ts). A transfer of 32 blocks:
 * 50 + 32 × 2 + 32 × 2 621 440 B / 50 GB/s = 50 + 64 + 1677.7 = 1791.7, so 1792 µs.
 */
const BYTES_PER_BLOCK = 2 * 40 * 8 * 128 * 2 * 16;

type Held = HeldRequest;

function held(id: string, prefillInstanceId?: string, attempt = 0): Held {
  return { id, inputTokens: 512, maxTokens: 4, priority: 0, attempt, blockHashes: Array.from({ length: 32 }, (_, i) => 7_000 + i), prefillInstanceId, ...UNMARKED };
}

/** What a driver sends the prefill instance: the prompt alone. */
const jobOf = (request: Held, decodeInstanceId: string): Held => ({ ...request, maxTokens: 1, prefillInstanceId: undefined, prefillFor: decodeInstanceId });

function disaggregatedWorker() {
  const { stage, recorder, agenda } = workerHarness<Held>({
    instances: 2,
    roles: ['prefill', 'decode'],
    kvTransfer: { model: KV_TRANSFER_PROFILES.nixl, bytesPerBlock: BYTES_PER_BLOCK },
  });
  const [prefill, decode] = stage.instances as [InstanceCore<Held>, InstanceCore<Held>];
  return { stage, prefill, decode, recorder, agenda };
}

describe('disaggregated prefill/decode on the worker (hand-computed)', () => {
  const { stage, prefill, decode, recorder, agenda } = disaggregatedWorker();
  const a = held('a', 'w-r0');
  const job = jobOf(a, 'w-r1');

  it('registers each instance with its role', () => {
    expect(prefill.identity.role).toBe('prefill');
    expect(decode.identity.role).toBe('decode');
  });

  it('the decode instance holds the request outside its engine and asks its prefill pick for the prompt', () => {
    decode.accept(a, micros(0));
    expect(recorder.of('prefillRequested')).toEqual([[decode, a, 'w-r0', 0]]);
    expect(recorder.names()).not.toContain('accepted');
    expect(decode.holding('a')).toBe(a);
    expect(decode.hasWork()).toBe(true);
    expect(agenda.due()).toEqual([]);
  });

  it('the prefill instance runs the prompt (queueing 8982, prefill 33 773) and answers at 42 855: no token reaches the client', () => {
    prefill.accept(job, micros(100));
    agenda.runUntil(42_855);
    expect(recorder.of('tokens')).toEqual([]);
    expect(recorder.of('completed')).toEqual([]);
    expect(recorder.of('prefilled').map((args) => args.slice(2))).toEqual([['ok', 42_855, { outputTokens: 1, workerQueueUs: 8_982, prefillUs: 33_773, decodeUs: 0 }]]);
    expect(recorder.of('prefilled')[0]?.slice(0, 2)).toEqual([prefill, job]);
    expect(recorder.of('done')).toEqual([[prefill, job, 'ok', 42_855]]);
    // Both hold the same id: the stage finds both copies.
    expect(stage.holdings('a').map((h) => h.instance)).toEqual([decode]);
  });

  it('the answer starts a 32-block transfer that lands 1792 µs later; the request then queues with its prompt cached but for the last block', () => {
    expect(stage.prefilled('w-r1', 'a', 'ok', 'w-r0', micros(43_000))).toBe(true);
    const [transfer] = recorder.of('transferStarted')[0]!.slice(2) as [{ blocks: number; startUs: number; doneAtUs: number }];
    expect(transfer).toMatchObject({ requestId: 'a', prefillInstanceId: 'w-r0', decodeInstanceId: 'w-r1', blocks: 32, startUs: 43_000, doneAtUs: 44_792 });
    agenda.runUntil(44_792);
    expect(recorder.of('transferEnded')[0]?.slice(1, 2)).toEqual([a]);
    expect(recorder.of('transferEnded')[0]?.[2]).toMatchObject({ observation: { numDescriptors: 32, bytesTransferred: 32 * BYTES_PER_BLOCK } });
    expect(a.transferredBlocks).toBe(32);
    expect(recorder.of('accepted').map(([instance, request, atUs]) => [(instance as InstanceCore<Held>).instanceId, (request as Held).id, atUs])).toEqual([
      ['w-r0', 'a', 100],
      ['w-r1', 'a', 44_792],
    ]);
  });

  it('after its queueing delay (ready 53 774) it computes the last block (14 209) and streams from 67 983, then decodes', () => {
    agenda.runUntil(1e9);
    expect(recorder.of('admitted')).toContainEqual([decode, a, 496, true, 53_774]);
    const times = recorder.of('tokens').map(([, , , atUs]) => atUs);
    expect(times).toEqual([67_983, 81_588, 95_193, 108_798]);
    expect(recorder.of('completed').map(([instance, request]) => [instance, request])).toEqual([[decode, a]]);
    expect(recorder.of('transferFailed')).toEqual([]);
    expect(stage.hasWork()).toBe(false);
  });
});

describe('disaggregated prefill/decode: what goes wrong', () => {
  it('a prefill instance that does not take the job: the decode instance prefills the prompt itself, at once', () => {
    const { decode, recorder, agenda } = disaggregatedWorker();
    const a = held('a', 'w-r0');
    decode.accept(a, micros(0));
    expect(decode.prefillRefused('a', micros(500))).toBe(true);
    expect(recorder.of('prefillLocally')).toEqual([[decode, a, 'prefill_refused', 500]]);
    agenda.runUntil(1e9);
    // Queued at 500: ready 9482, the whole prompt computed (nothing cached).
    expect(recorder.of('admitted')[0]).toEqual([decode, a, 0, true, 9_482]);
    expect(recorder.of('completed')).toHaveLength(1);
  });

  it('a prefill job that fails is its decode instance to prefill, not an error for the client', () => {
    const { prefill, decode, recorder } = disaggregatedWorker();
    prefill.setFaults({ failureRate: 1, failureTypes: ['server_error'] });
    const a = held('a', 'w-r0');
    decode.accept(a, micros(0));
    const job = jobOf(a, 'w-r1');
    prefill.accept(job, micros(100));
    expect(recorder.of('failed')).toEqual([]);
    expect(recorder.of('prefilled')).toEqual([[prefill, job, 'failed', 100]]);
    decode.prefilled('a', 'failed', 'w-r0', micros(200));
    expect(recorder.of('prefillLocally')).toEqual([[decode, a, 'prefill_failed', 200]]);
    expect(recorder.of('accepted')).toEqual([[decode, a, 200]]);
  });

  it('a request cancelled mid-transfer fails its transfer, and a cancel reaches both copies of one worker', () => {
    const { stage, prefill, decode, recorder, agenda } = disaggregatedWorker();
    const a = held('a', 'w-r0');
    decode.accept(a, micros(0));
    decode.prefilled('a', 'ok', 'w-r0', micros(1_000));
    prefill.accept(jobOf(held('b'), 'w-r1'), micros(1_000));
    decode.accept(held('b', 'w-r0'), micros(1_000));
    expect(stage.cancel('a', 'cancelled', micros(2_000))).toBe(true);
    expect(recorder.of('transferFailed').map(([instance, request, atUs]) => [instance, (request as Held).id, atUs])).toEqual([[decode, 'a', 2_000]]);
    expect(recorder.of('cancelled').map(([, request]) => (request as Held).id)).toEqual(['a']);
    expect(stage.cancel('b', 'cancelled', micros(3_000))).toBe(true);
    agenda.runUntil(1e9); // the landing and the step they had asked for find nothing
    expect(recorder.of('transferEnded')).toEqual([]);
    expect(recorder.of('prefilled')).toEqual([]);
    expect(recorder.of('cancelled').map(([instance, request]) => `${(instance as InstanceCore<Held>).instanceId}:${(request as Held).id}`)).toEqual(['w-r1:a', 'w-r0:b', 'w-r1:b']);
    expect(stage.hasWork()).toBe(false);
  });

  it('a copy of a job it runs is not run twice; a newer attempt’s job drops the older one first', () => {
    const { prefill, recorder } = disaggregatedWorker();
    expect(prefill.acceptPrefillJob(jobOf(held('a'), 'w-r1'), micros(0))).toBe(true);
    expect(prefill.acceptPrefillJob(jobOf(held('a'), 'w-r1'), micros(10))).toBe(false);
    expect(recorder.of('accepted')).toHaveLength(1);
    const newer = jobOf(held('a', undefined, 1), 'w-r1');
    expect(prefill.acceptPrefillJob(newer, micros(20))).toBe(true);
    expect(recorder.of('cancelled').map(([, request]) => (request as Held).attempt)).toEqual([0]);
    expect(prefill.holding('a')).toBe(newer);
  });

  it('an instance going away: its prefill jobs are failed back to their decode instances, the requests it decodes go back to their gateways', () => {
    const { stage, prefill, decode, recorder } = disaggregatedWorker();
    prefill.accept(jobOf(held('a'), 'w-r1'), micros(0));
    decode.accept(held('b', 'w-r0'), micros(0));
    expect(stage.handBackAll(micros(10))).toBe(2);
    expect(recorder.of('prefilled').map(([, request, outcome]) => [(request as Held).id, outcome])).toEqual([['a', 'failed']]);
    expect(recorder.of('handedBack').map(([, request]) => (request as Held).id)).toEqual(['b']);
  });

  it('a request handed back mid-transfer (its instance going away) fails its transfer too', () => {
    const { stage, decode, recorder } = disaggregatedWorker();
    decode.accept(held('a', 'w-r0'), micros(0));
    decode.prefilled('a', 'ok', 'w-r0', micros(100));
    expect(stage.handBackAll(micros(200))).toBe(1);
    expect(recorder.of('transferFailed').map(([, request, atUs]) => [(request as Held).id, atUs])).toEqual([['a', 200]]);
    expect(recorder.of('handedBack').map(([, request]) => (request as Held).id)).toEqual(['a']);
  });
});
