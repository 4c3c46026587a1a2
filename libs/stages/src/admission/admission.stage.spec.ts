import { micros, type BusyThresholdsAnnouncement } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import { Agenda, Recorder } from '../testing/recorder.js';
import { ms, registered, snapshot, stageRequest } from '../testing/requests.js';
import { ControlRefusal } from './admission-policy.store.js';
import type { AdmissionEffects } from './admission.effects.js';
import { AdmissionStage, type AdmissionWakeUp } from './admission.stage.js';
import { stepCoefficientsFrom, type AdmissionSettings } from './admission.settings.js';

type Request = ReturnType<typeof stageRequest>;

function stage(overrides: Partial<AdmissionSettings> = {}) {
  const recorder = new Recorder();
  const agenda = new Agenda<AdmissionWakeUp>();
  const settings: AdmissionSettings = { policy: ['always-admit'], policies: {}, models: ['qwen3-14b'], heartbeatTimeoutUs: ms(3_000), prefixIndex: 'always', ...overrides };
  const core: AdmissionStage<Request, string> = new AdmissionStage(settings, recorder.port<AdmissionEffects<Request, string>>(), agenda.wakeUps((kind, atUs) => core.wake(kind, atUs)));
  return { core, recorder, agenda };
}

describe('AdmissionStage', () => {
  it('asks the policy, reports the decision, then hands the request on with the driver’s context', () => {
    const { core, recorder } = stage();
    const request = stageRequest({ id: 'a' });
    core.submit(request, ms(1), 'span-a');
    expect(recorder.names()).toEqual(['decided', 'handOn']);
    expect(recorder.of('decided')[0]).toEqual([request, 'span-a', 'always-admit', expect.objectContaining({ admit: true })]);
    expect(recorder.of('handOn')[0]).toEqual([request, 'span-a']);
  });

  it('ends a refused request here with the policy’s reason and message (token bucket, 1 000 tokens, no refill)', () => {
    const { core, recorder } = stage({ policy: ['token-bucket'], policies: { 'token-bucket': { capacity: 1_000, refillRate: 0 } } });
    for (const id of ['a', 'b', 'c', 'd']) core.submit(stageRequest({ id, inputTokens: 300 }), ms(1), id);
    expect(recorder.of('handOn').map(([r]) => (r as Request).id)).toEqual(['a', 'b', 'c']);
    // No refill: no time would let it pass, so no retry estimate.
    expect(recorder.of('reject')).toEqual([[expect.objectContaining({ id: 'd' }), 'd', 'insufficient_tokens', 'insufficient tokens: the request costs 300, the bucket holds 100.0', undefined]]);
  });

  it('passes the bucket\'s refill time to the request\'s cost with the refusal (the gateway\'s retry-after)', () => {
    const { core, recorder } = stage({ policy: ['token-bucket'], policies: { 'token-bucket': { capacity: 1_000, refillRate: 100 } } });
    for (const id of ['a', 'b', 'c', 'd']) core.submit(stageRequest({ id, inputTokens: 300 }), ms(1), id);
    // 100 left, 200 short at 100 tokens/s: 2 s.
    expect(recorder.of('reject').map(([, , , , retryAfterMs]) => retryAfterMs)).toEqual([2_000]);
  });

  it('a handoff flow control refuses ends the request with flow_unavailable', () => {
    const { core, recorder } = stage();
    const request = stageRequest({ id: 'a' });
    core.handoffRefused(request, 'ctx', 'no service is listening on sluice.v1.flow.submit');
    expect(recorder.of('reject')).toEqual([[request, 'ctx', 'flow_unavailable', 'no service is listening on sluice.v1.flow.submit']]);
  });

  it('switches policy at run time: the next request meets the new one; a bad change is refused naming the field', () => {
    const { core, recorder } = stage();
    core.setPolicy({ policy: 'reject-all', params: {} }, ms(1));
    expect(core.policyState().policy).toBe('reject-all');
    core.submit(stageRequest({ id: 'a' }), ms(1), 'a');
    expect(recorder.of('reject')[0]?.[2]).toBe('rejected_by_policy');
    expect(() => core.setPolicy({ policy: 'token-bucket', params: { capacity: -1 } }, ms(1))).toThrow(ControlRefusal);
    expect(() => core.setPolicy({ policy: 'token-bucket', params: { capacity: -1 } }, ms(1))).toThrow(/params\.capacity/);
    expect(() => core.setPolicy({ policy: 'no-such-policy', params: {} }, ms(1))).toThrow('unknown admission policy "no-such-policy"');
    expect(core.policyState().policy).toBe('reject-all');
  });

  it('keeps busy thresholds per model and refuses an unknown model', () => {
    const { core } = stage();
    expect(core.setBusyThreshold({ model: 'qwen3-14b', active_decode_blocks_threshold: 0.5 }, ms(1))).toEqual({ model: 'qwen3-14b', active_decode_blocks_threshold: 0.5, active_prefill_tokens_threshold: null });
    expect(core.busyThresholds().thresholds).toEqual([{ model: 'qwen3-14b', active_decode_blocks_threshold: 0.5, active_prefill_tokens_threshold: null }]);
    expect(() => core.setBusyThreshold({ model: 'gpt-x', active_decode_blocks_threshold: 0.5 }, ms(1))).toThrow('unknown model "gpt-x"');
  });

  it('with busy-threshold, rejects with all_workers_busy once every instance it knows is busy', () => {
    const { core, recorder } = stage({ policy: ['busy-threshold'], policies: { 'busy-threshold': { activeDecodeBlocksThreshold: 0.5 } } });
    core.onLifecycle(registered('i1'));
    core.submit(stageRequest({ id: 'a' }), ms(1), 'a');
    core.onSnapshot(snapshot('i1', ms(2), { activeDecodeBlocks: 600 }));
    core.submit(stageRequest({ id: 'b' }), ms(3), 'b');
    expect(recorder.of('handOn').map(([r]) => (r as Request).id)).toEqual(['a']);
    expect(recorder.of('reject')[0]?.[2]).toBe('all_workers_busy');
  });

  it('keeps a prefix index from KV events always in a service, and in the twin only for a policy that reads one', () => {
    expect(stage({ prefixIndex: 'always' }).core.wantsKvEvents).toBe(true);
    expect(stage({ prefixIndex: 'when-read' }).core.wantsKvEvents).toBe(false);
    expect(stage({ prefixIndex: 'when-read', policy: ['slo-predictive'] }).core.wantsKvEvents).toBe(true);
  });

  it('slo-predictive counts the prefix an instance reported cached through KV events', () => {
    const { core, recorder } = stage({ policy: ['slo-predictive'] });
    core.onLifecycle(registered('i1'));
    const request = stageRequest({ id: 'a', inputTokens: 64, blockHashes: [11, 12, 13, 14] });
    core.submit(request, ms(1), 'before');
    core.onKv({ instanceId: 'i1', atUs: ms(2), stored: [11, 12, 13, 14], removed: [] });
    core.submit(request, ms(3), 'after');
    const cached = recorder.of('decided').map(([, , , decision]) => (decision as { inputs: Record<string, unknown> }).inputs.cached_tokens);
    expect(cached).toEqual([0, 64]);
  });

  it('a cleared KV event (the instance started again under its id) drops the prefix it had reported', () => {
    const { core, recorder } = stage({ policy: ['slo-predictive'] });
    core.onLifecycle(registered('i1'));
    const request = stageRequest({ id: 'a', inputTokens: 64, blockHashes: [11, 12, 13, 14] });
    core.onKv({ instanceId: 'i1', atUs: ms(1), stored: [11, 12, 13, 14], removed: [] });
    core.submit(request, ms(2), 'before');
    core.onKv({ instanceId: 'i1', atUs: ms(3), stored: [11], removed: [], cleared: true });
    core.submit(request, ms(4), 'after');
    const cached = recorder.of('decided').map(([, , , decision]) => (decision as { inputs: Record<string, unknown> }).inputs.cached_tokens);
    expect(cached).toEqual([64, 16]);
  });

  it('ignores KV events of an instance it does not know: it would never leave, nor would its blocks', () => {
    const { core, recorder } = stage({ policy: ['slo-predictive'] });
    core.onLifecycle(registered('i1'));
    core.onKv({ instanceId: 'forged', atUs: ms(1), stored: [11, 12, 13, 14], removed: [] });
    core.submit(stageRequest({ id: 'a', inputTokens: 64, blockHashes: [11, 12, 13, 14] }), ms(2), 'a');
    const cached = recorder.of('decided').map(([, , , decision]) => (decision as { inputs: Record<string, unknown> }).inputs.cached_tokens);
    expect(cached).toEqual([0]);
  });

  it('sweeps every third of the heartbeat timeout: a silent instance leaves the view, and is reported once', () => {
    const { core, recorder, agenda } = stage();
    core.start(micros(0));
    expect(agenda.due('sweep')).toEqual([ms(1_000)]);
    core.onLifecycle(registered('quiet', micros(0)));
    core.onLifecycle(registered('chatty', micros(0)));
    for (const at of [1_000, 2_000, 3_000]) core.onSnapshot(snapshot('chatty', ms(at)));
    agenda.runUntil(ms(3_000));
    expect(recorder.of('instancesLost')).toEqual([]);
    expect(core.instanceCount()).toBe(2);
    agenda.runUntil(ms(4_000));
    expect(recorder.of('instancesLost')).toEqual([[['quiet']]]);
    expect(core.instanceCount()).toBe(1);
    expect(agenda.due('sweep')).toEqual([ms(5_000)]);
  });

  it('ignores a sweep wake-up it did not ask for, and asks for none after stop', () => {
    const { core, agenda } = stage();
    core.start(micros(0));
    core.wake('sweep', ms(500));
    expect(agenda.due('sweep')).toEqual([ms(1_000)]);
    core.stop();
    agenda.runUntil(ms(10_000));
    expect(agenda.due()).toEqual([]);
  });

  describe('a chain of checks', () => {
    const chainStage = () => {
      const made = stage({
        policy: ['busy-threshold', 'token-bucket'],
        policies: { 'busy-threshold': { activeDecodeBlocksThreshold: 0.5 }, 'token-bucket': { capacity: 1_000, refillRate: 0 } },
      });
      made.core.onLifecycle(registered('i1'));
      return made;
    };
    const decisions = (recorder: Recorder) =>
      recorder.of('decided').map(([, , policy, d]) => {
        const decision = d as { admit: boolean; checks: { policy: string; decision: { admit: boolean } }[] };
        return `${String(policy)}:${decision.admit ? 'admit' : 'reject'}[${decision.checks.map((c) => `${c.policy}=${c.decision.admit ? 'admit' : 'reject'}`).join(' ')}]`;
      });

    it('checks in order; the first to refuse decides, and the later ones do not run (nor charge)', () => {
      const { core, recorder } = chainStage();
      core.submit(stageRequest({ id: 'a', inputTokens: 600 }), ms(1), 'a');
      core.submit(stageRequest({ id: 'b', inputTokens: 600 }), ms(2), 'b');
      core.onSnapshot(snapshot('i1', ms(3), { activeDecodeBlocks: 600 }));
      core.submit(stageRequest({ id: 'c', inputTokens: 300 }), ms(4), 'c');
      core.onSnapshot(snapshot('i1', ms(5), { activeDecodeBlocks: 0 }));
      core.submit(stageRequest({ id: 'd', inputTokens: 300 }), ms(6), 'd');
      expect(decisions(recorder)).toEqual([
        'token-bucket:admit[busy-threshold=admit token-bucket=admit]',
        'token-bucket:reject[busy-threshold=admit token-bucket=reject]',
        'busy-threshold:reject[busy-threshold=reject]',
        // c was refused before the bucket: its 300 tokens are still there for d.
        'token-bucket:admit[busy-threshold=admit token-bucket=admit]',
      ]);
      expect(recorder.of('reject').map(([r, , reason]) => `${(r as Request).id}:${String(reason)}`)).toEqual(['b:insufficient_tokens', 'c:all_workers_busy']);
    });

    it('shows the chain and each check’s parameters; params of one check are named by it', () => {
      const { core } = chainStage();
      expect(core.policyState()).toEqual({
        policy: 'busy-threshold,token-bucket',
        params: { 'busy-threshold': { activeDecodeBlocksThreshold: 0.5 }, 'token-bucket': { capacity: 1_000, refillRate: 0 } },
      });
      expect(() => core.setPolicy({ params: { capacity: 5 } }, ms(1))).toThrow(/params\.capacity: the chain has 2 checks .*token-bucket\.capacity|name the check/);
      core.setPolicy({ params: { 'token-bucket': { capacity: 5 } } }, ms(1));
      expect(core.policyState().params['token-bucket']).toEqual({ capacity: 5, refillRate: 0 });
      expect(() => core.setPolicy({ params: { 'token-bucket': { capacity: -5 } } }, ms(1))).toThrow(/params\.token-bucket\.capacity/);
    });

    it('switches the chain at run time as a list or a comma-separated string; refuses one that cannot work, naming the entry', () => {
      const { core } = chainStage();
      expect(core.setPolicy({ policy: ['token-bucket'], params: {} }, ms(1)).policy).toBe('token-bucket');
      expect(core.setPolicy({ policy: 'slo-predictive, busy-threshold', params: {} }, ms(1)).policy).toBe('slo-predictive,busy-threshold');
      expect(() => core.setPolicy({ policy: 'busy-threshold,busy-threshold', params: {} }, ms(1))).toThrow('policy: "busy-threshold" is listed twice');
      expect(() => core.setPolicy({ policy: 'always-admit,token-bucket', params: {} }, ms(1))).toThrow(/policy: always-admit admits everything/);
      expect(() => core.setPolicy({ policy: 'reject-all,token-bucket', params: {} }, ms(1))).toThrow(/policy: reject-all rejects everything/);
      expect(() => core.setPolicy({ policy: 'token-bucket,fastest', params: {} }, ms(1))).toThrow(/policy: unknown admission policy "fastest"/);
      expect(() => core.setPolicy({ policy: ['token-bucket', 'fastest'], params: {} }, ms(1))).toThrow(/policy\[1\]: unknown admission policy "fastest"/);
      expect(core.policyState().policy).toBe('slo-predictive,busy-threshold');
    });

    it('keeps the prefix index in the twin when any check of the chain reads it', () => {
      expect(stage({ prefixIndex: 'when-read', policy: ['busy-threshold', 'slo-predictive'] }).core.wantsKvEvents).toBe(true);
    });
  });

  describe('busy thresholds reach the routers', () => {
    const announced = (recorder: Recorder) => recorder.of('announceBusyThresholds').map(([a]) => a as BusyThresholdsAnnouncement);

    it('announces them at start, on every change (stamped with its time) and at every sweep', () => {
      const { core, recorder, agenda } = stage({ policies: { 'busy-threshold': { activeDecodeBlocksThreshold: 0.9 } } });
      core.start(micros(0));
      expect(announced(recorder)).toEqual([{ settings: { activeDecodeBlocksThreshold: 0.9 }, changedAtUs: 0 }]);
      core.setBusyThreshold({ model: 'qwen3-14b', active_decode_blocks_threshold: null }, ms(5));
      expect(announced(recorder).at(-1)).toEqual({ settings: { activeDecodeBlocksThreshold: 0.9, models: { 'qwen3-14b': { activeDecodeBlocksThreshold: null } } }, changedAtUs: ms(5) });
      // Clearing a model's value clears it, even with a top-level value configured.
      expect(core.busyThresholds().thresholds).toEqual([{ model: 'qwen3-14b', active_decode_blocks_threshold: null, active_prefill_tokens_threshold: null }]);
      core.setPolicy({ params: { 'busy-threshold': { activePrefillTokensThreshold: 10 } } }, ms(6));
      expect(announced(recorder).at(-1)?.changedAtUs).toBe(ms(6));
      const before = announced(recorder).length;
      core.setPolicy({ params: { 'token-bucket': { capacity: 10 } } }, ms(7)); // not a busy threshold: nothing to announce
      expect(announced(recorder)).toHaveLength(before);
      agenda.runUntil(ms(1_000));
      expect(announced(recorder)).toHaveLength(before + 1);
    });

    it('takes a peer’s newer thresholds, ignores older ones, and its busy check applies them', () => {
      const { core, recorder } = stage({ policy: ['busy-threshold'] });
      core.onLifecycle(registered('i1'));
      core.onSnapshot(snapshot('i1', ms(1), { activeDecodeBlocks: 600 }));
      expect(core.onBusyThresholds({ settings: { activeDecodeBlocksThreshold: 0.5 }, changedAtUs: 100 })).toBe(true);
      expect(core.onBusyThresholds({ settings: {}, changedAtUs: 0 })).toBe(false);
      core.submit(stageRequest({ id: 'a' }), ms(2), 'a');
      expect(recorder.of('reject')[0]?.[2]).toBe('all_workers_busy');
      expect(core.busyThresholds().thresholds[0]?.active_decode_blocks_threshold).toBe(0.5);
    });
  });
});

describe('AdmissionStage: predictive inputs', () => {
  // Round coefficients: TTFT = 10 ms per request ahead + 10 ms + 0 per token.
  const ROUND = { avgStepTimeUs: 10_000, prefillBaseUs: 10_000, prefillPerTokenUs: 0 };
  const predictive = (params: Record<string, unknown> = ROUND, overrides: Partial<AdmissionSettings> = {}) => {
    const s = stage({ policy: ['slo-predictive'], policies: { 'slo-predictive': params }, ledgerSettleUs: ms(3), ...overrides });
    s.core.onLifecycle(registered('i1'));
    s.core.onLifecycle(registered('i2'));
    s.core.onSnapshot(snapshot('i1', ms(0)));
    s.core.onSnapshot(snapshot('i2', ms(0)));
    return s;
  };
  const inputs = (recorder: Recorder, i: number) => (recorder.of('decided')[i]![3] as { inputs: Record<string, unknown> }).inputs;

  it('counts a burst it admitted against one snapshot, and stops counting it once the snapshots were taken after it', () => {
    const { core, recorder } = predictive();
    for (let i = 0; i < 4; i++) core.submit(stageRequest({ id: `r${i}` }), ms(10), `r${i}`);
    // The 4th sees the 3 before it, spread over 2 instances: the best waits behind 1.
    expect(recorder.of('decided').map((_, i) => inputs(recorder, i).ledger_unseen)).toEqual([0, 1, 2, 3]);
    expect(inputs(recorder, 3)).toMatchObject({ queue_ahead: 1, predicted_ttft_us: 20_000, snapshot_age_us: 10_000 });
    // Snapshots taken 2 ms later might predate the requests' arrival (settle 3 ms): still counted.
    core.onSnapshot(snapshot('i1', ms(12), { queueDepth: 2 }));
    core.onSnapshot(snapshot('i2', ms(12), { queueDepth: 2 }));
    core.submit(stageRequest({ id: 'r4' }), ms(13), 'r4');
    expect(inputs(recorder, 4)).toMatchObject({ ledger_unseen: 4 });
    // Both taken 3 ms after: the snapshots show them, only r4 is still unseen.
    core.onSnapshot(snapshot('i1', ms(13), { queueDepth: 2 }));
    core.onSnapshot(snapshot('i2', ms(13), { queueDepth: 2 }));
    core.submit(stageRequest({ id: 'r5' }), ms(14), 'r5');
    // r4 goes to one of the two queues of 2 (spread), so the best still waits behind 2.
    expect(inputs(recorder, 5)).toMatchObject({ ledger_unseen: 1, queue_ahead: 2, predicted_ttft_us: 30_000 });
    expect(core.ledgerSize).toBe(2);
  });

  it("adds flow control's queue of equal or higher priority, and waits for its report before retiring", () => {
    const { core, recorder } = predictive();
    core.onFlowQueue({ processId: 'f1', atUs: ms(5), bands: [{ model: 'qwen3-14b', priority: 4, requests: 2 }, { model: 'qwen3-14b', priority: -2, requests: 10 }] });
    core.submit(stageRequest({ id: 'std', priority: 3 }), ms(10), 'std');
    expect(inputs(recorder, 0)).toMatchObject({ flow_queued_ahead: 2, queue_report_age_us: 5_000, queue_ahead: 1 });
    // Snapshots after the settle time, but flow control's report is older: the request may be waiting there.
    core.onSnapshot(snapshot('i1', ms(20)));
    core.onSnapshot(snapshot('i2', ms(20)));
    core.submit(stageRequest({ id: 'next', priority: -2 }), ms(20), 'next');
    expect(inputs(recorder, 1)).toMatchObject({ ledger_unseen: 1, flow_queued_ahead: 12 });
    core.onFlowQueue({ processId: 'f1', atUs: ms(20), bands: [] });
    core.submit(stageRequest({ id: 'last' }), ms(21), 'last');
    expect(inputs(recorder, 2)).toMatchObject({ ledger_unseen: 1, flow_queued_ahead: 0 });
  });

  it("takes the serving model's coefficients from its profile, scaled by timeScale", () => {
    const { core, recorder } = predictive(
      {},
      { stepCoefficients: { 'qwen3-14b': stepCoefficientsFrom({ name: 'tiny', beta: [5_000, 10, 1_000] }, 10) } },
    );
    core.submit(stageRequest({ id: 'a', inputTokens: 100 }), ms(1), 'a');
    // 10× faster: β = 500, 1, 100 → 0 ahead · 600 + 500 + 1·100.
    expect(inputs(recorder, 0)).toMatchObject({ avg_step_time_us: 600, prefill_base_us: 500, prefill_per_token_us: 1, predicted_ttft_us: 600, coefficients: 'profile:tiny' });
  });
});
