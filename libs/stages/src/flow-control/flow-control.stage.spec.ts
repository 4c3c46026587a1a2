import { micros } from '@sluice/contracts';
import { createFlowControlRegistry, FlowControlConfigSchema, type FlowControlConfigInput } from '@sluice/policies';
import { describe, expect, it } from 'vitest';
import { Agenda, Recorder } from '../testing/recorder.js';
import { ms, registered, snapshot, stageRequest } from '../testing/requests.js';
import type { FlowControlEffects } from './flow-control.effects.js';
import { FlowControlStage, type FlowControlWakeUp } from './flow-control.stage.js';
import { flowControlSettingsFrom } from './flow-control.settings.js';

type Request = ReturnType<typeof stageRequest>;

/** One request in flight at a time: the concurrency detector with a limit of 1 per endpoint. */
const ONE_AT_A_TIME: FlowControlConfigInput = { saturationDetector: { type: 'concurrency-detector', parameters: { maxConcurrency: 1 } } };

function stage(config: FlowControlConfigInput = ONE_AT_A_TIME, enabled = true) {
  const recorder = new Recorder();
  const agenda = new Agenda<FlowControlWakeUp>();
  const settings = flowControlSettingsFrom({ ...FlowControlConfigSchema.parse(config), enabled, heartbeatTimeoutMs: 3_000 }, createFlowControlRegistry());
  const core: FlowControlStage<Request, string> = new FlowControlStage(settings, recorder.port<FlowControlEffects<Request, string>>(), agenda.wakeUps((kind, atUs) => core.wake(kind, atUs)));
  // One endpoint, so the detectors have somewhere to send work.
  core.onLifecycle(registered('i1'), micros(0));
  return { core, recorder, agenda };
}

const released = (recorder: Recorder) => recorder.of('handOn').map(([r]) => (r as Request).id);
const done = (requestId: string) => ({ requestId, instanceId: 'i1', reason: 'ok' as const, atUs: micros(0) });

describe('FlowControlStage: the gated dispatch cycle', () => {
  it('releases a request at once while there is capacity: enqueued, then handed on with no queue time', () => {
    const { core, recorder } = stage();
    const a = stageRequest({ id: 'a' });
    core.submit(a, ms(10), 'ctx-a');
    expect(recorder.names()).toEqual(['arrived', 'cycleStarted', 'handOn', 'cycleFinished']);
    expect(recorder.of('arrived')[0]).toEqual([a, 'ctx-a', { outcome: 'enqueued', queueSize: 1 }]);
    expect(recorder.of('handOn')[0]).toEqual([a, 'ctx-a', { saturation: 0, enqueuedAtUs: ms(10) }]);
    expect(a.timings.flowQueueMs).toBe(0);
    expect(core.inFlight).toBe(1);
  });

  it('holds the next request while saturated and releases it when the first one is done, with its wait as queue time', () => {
    const { core, recorder } = stage();
    core.submit(stageRequest({ id: 'a' }), ms(10), 'a');
    const b = stageRequest({ id: 'b' });
    core.submit(b, ms(12), 'b');
    expect(released(recorder)).toEqual(['a']);
    expect(core.queuedByModel()).toEqual(new Map([['qwen3-14b', 1]]));
    core.onDone(done('never-dispatched'), ms(20)); // not ours: frees nothing
    expect(released(recorder)).toEqual(['a']);
    core.onDone({ ...done('a'), instanceId: 'prefill-1', prefillOnly: true }, ms(30)); // its prompt is done; it still decodes
    expect(released(recorder)).toEqual(['a']);
    core.onDone(done('a'), ms(40));
    expect(released(recorder)).toEqual(['a', 'b']);
    expect(b.timings.flowQueueMs).toBe(28);
    expect(recorder.of('handOn')[1]?.[2]).toEqual({ saturation: 0, enqueuedAtUs: ms(12) });
    expect(core.queuedByModel().size).toBe(0);
  });

  it('serves the highest priority band first, whatever the arrival order', () => {
    const { core, recorder } = stage();
    core.submit(stageRequest({ id: 'first' }), ms(1), '');
    core.submit(stageRequest({ id: 'sheddable', priority: -2 }), ms(2), '');
    core.submit(stageRequest({ id: 'standard', priority: 3 }), ms(3), '');
    core.submit(stageRequest({ id: 'critical', priority: 4 }), ms(4), '');
    for (const [id, at] of [['first', 10], ['critical', 20], ['standard', 30]] as const) core.onDone(done(id), ms(at));
    expect(released(recorder)).toEqual(['first', 'critical', 'standard', 'sheddable']);
  });

  it('dispatches when a fresher snapshot shows room (utilization detector): a stale or missing snapshot counts as full', () => {
    const { core, recorder } = stage({});
    core.submit(stageRequest({ id: 'a' }), ms(100), '');
    expect(released(recorder)).toEqual([]); // no snapshot yet: saturated
    core.onSnapshot(snapshot('i1', ms(150)), ms(150));
    expect(released(recorder)).toEqual(['a']);
    core.submit(stageRequest({ id: 'b' }), ms(500), ''); // that snapshot is now 350 ms old: stale
    expect(released(recorder)).toEqual(['a']);
    core.onSnapshot(snapshot('i1', ms(510)), ms(510));
    expect(released(recorder)).toEqual(['a', 'b']);
  });

  it('refuses at once what a band’s limit cannot hold (flow_capacity), naming the limit', () => {
    const { core, recorder } = stage({ ...ONE_AT_A_TIME, priorityBands: [{ priority: 3, maxRequests: 1 }] });
    for (const id of ['a', 'b', 'c']) core.submit(stageRequest({ id }), ms(1), id);
    expect(released(recorder)).toEqual(['a']);
    expect(recorder.of('arrived')[2]?.[2]).toEqual({ outcome: 'flow_capacity', exceeded: { scope: 'band', resource: 'requests', limit: 1 } });
    expect(recorder.of('reject')).toEqual([[expect.objectContaining({ id: 'c' }), 'c', 'flow_capacity', 'flow control capacity: priority band 3 holds 1 requests (maxRequests 1)']]);
  });

  it('a release the router refuses leaves the books and ends the request with router_unavailable', () => {
    const { core, recorder } = stage();
    const a = stageRequest({ id: 'a' });
    core.submit(a, ms(1), 'ctx');
    core.submit(stageRequest({ id: 'b' }), ms(2), 'b');
    core.handoffRefused(a, 'ctx', 'no ack from sluice.v1.router.submit in time');
    expect(core.inFlight).toBe(0);
    expect(recorder.of('reject')).toEqual([[a, 'ctx', 'router_unavailable', 'no ack from sluice.v1.router.submit in time']]);
  });
});

describe('FlowControlStage: eviction', () => {
  it('keeps one wake-up, at the earliest TTL deadline, and evicts at it with ttl_expired', () => {
    const { core, recorder, agenda } = stage({ ...ONE_AT_A_TIME, defaultRequestTTL: 50 });
    core.submit(stageRequest({ id: 'running' }), ms(0), '');
    // Each reached its gateway 2 ms before it was queued here: the TTL counts from that arrival.
    core.submit(stageRequest({ id: 'b', arrivalUs: ms(12) }), ms(14), 'b');
    core.submit(stageRequest({ id: 'c', arrivalUs: ms(20) }), ms(22), 'c');
    expect(agenda.due('ttl')).toEqual([ms(62)]);
    agenda.runUntil(ms(62));
    expect(recorder.of('evict')).toEqual([[expect.objectContaining({ id: 'b' }), 'b', 'ttl_expired', 'evicted from the flow-control queue: its TTL ran out before capacity freed up', ms(14)]]);
    expect(agenda.due('ttl')).toEqual([ms(70)]);
    agenda.runUntil(ms(70));
    expect(recorder.of('evict').map(([r]) => (r as Request).id)).toEqual(['b', 'c']);
    expect(agenda.due('ttl')).toEqual([]);
    expect(released(recorder)).toEqual(['running']);
  });

  it('ignores a TTL wake-up it no longer expects', () => {
    const { core, recorder } = stage({ ...ONE_AT_A_TIME, defaultRequestTTL: 50 });
    core.submit(stageRequest({ id: 'running' }), ms(0), '');
    core.submit(stageRequest({ id: 'b' }), ms(10), 'b');
    core.wake('ttl', ms(61));
    expect(recorder.of('evict')).toEqual([]);
  });

  it('a cancel evicts a queued request with its reason, and does nothing for one not queued', () => {
    const { core, recorder } = stage();
    core.submit(stageRequest({ id: 'running' }), ms(0), '');
    core.submit(stageRequest({ id: 'b' }), ms(5), 'b');
    core.onCancel({ requestId: 'running', reason: 'client_disconnected' }, ms(6));
    core.onCancel({ requestId: 'b', reason: 'client_disconnected' }, ms(7));
    expect(recorder.of('evict')).toEqual([[expect.objectContaining({ id: 'b' }), 'b', 'client_disconnected', 'evicted from the flow-control queue: the client disconnected', ms(5)]]);
  });

  it('at shutdown hands everything queued back to its gateway, and what still arrives', () => {
    const { core, recorder } = stage();
    core.start(micros(0));
    core.submit(stageRequest({ id: 'running' }), ms(0), '');
    for (const id of ['b', 'c']) core.submit(stageRequest({ id }), ms(1), id);
    expect(core.stop()).toBe(2);
    expect(recorder.of('handBack').map(([r, , back]) => [(r as Request).id, back])).toEqual([
      ['b', { resumeAt: 'flow', reason: 'stage_shutdown', message: 'the flow controller holding it shut down' }],
      ['c', { resumeAt: 'flow', reason: 'stage_shutdown', message: 'the flow controller holding it shut down' }],
    ]);
    expect(recorder.of('evict')).toEqual([]);
    // A handoff already on its way when the intake closed is given back too, not refused.
    core.submit(stageRequest({ id: 'late' }), ms(2), 'late');
    expect(recorder.of('handBack').map(([r]) => (r as Request).id)).toEqual(['b', 'c', 'late']);
    expect(recorder.of('reject')).toEqual([]);
  });

  it('a router that does not answer gets the request handed back; a nack ends it', () => {
    const { core, recorder } = stage();
    core.start(micros(0));
    const a = stageRequest({ id: 'a' });
    const b = stageRequest({ id: 'b' });
    core.submit(a, ms(0), 'a');
    core.handoffRefused(a, 'a', 'no service is listening', 'no_responders');
    core.submit(b, ms(1), 'b');
    core.handoffRefused(b, 'b', 'malformed', 'nack');
    expect(recorder.of('handBack').map(([r, , back]) => [(r as Request).id, (back as { resumeAt: string }).resumeAt])).toEqual([['a', 'router']]);
    expect(recorder.of('reject').map(([r, , reason]) => [(r as Request).id, reason])).toEqual([['b', 'router_unavailable']]);
    expect(core.inFlight).toBe(0);
  });

  it('with evict, shutdown evicts everything queued with 500 (the Endpoint Picker’s way) and refuses new arrivals', () => {
    const { core, recorder, agenda } = stage();
    core.start(micros(0));
    core.submit(stageRequest({ id: 'running' }), ms(0), '');
    for (const id of ['b', 'c']) core.submit(stageRequest({ id }), ms(1), id);
    expect(core.stop('evict')).toBe(2);
    expect(recorder.of('evict').map(([r, , reason]) => [(r as Request).id, reason])).toEqual([['b', 'shutdown'], ['c', 'shutdown']]);
    core.submit(stageRequest({ id: 'late' }), ms(2), 'late');
    expect(recorder.of('reject')).toEqual([[expect.objectContaining({ id: 'late' }), 'late', 'shutdown', 'evicted from the flow-control queue: the flow controller is shutting down']]);
    // The wake-ups asked for before the stop come and change nothing; none is asked for again.
    agenda.runUntil(ms(120_000));
    expect(agenda.due()).toEqual([]);
    expect(recorder.of('evict')).toHaveLength(2);
  });

  it('sweeps forget a dispatch whose done event never came, at the request’s deadline', () => {
    const { core, agenda } = stage();
    core.start(micros(0));
    core.submit(stageRequest({ id: 'lost', deadlineUs: ms(2_500) }), ms(0), '');
    expect(core.inFlight).toBe(1);
    agenda.runUntil(ms(2_000));
    expect(core.inFlight).toBe(1);
    agenda.runUntil(ms(3_000));
    expect(core.inFlight).toBe(0);
  });
});

describe('FlowControlStage: flow control disabled (legacy mode)', () => {
  it('passes everything straight through while the pool has room', () => {
    const { core, recorder } = stage(ONE_AT_A_TIME, false);
    const a = stageRequest({ id: 'a', priority: -2 });
    core.submit(a, ms(1), 'a');
    expect(recorder.of('arrived')[0]?.[2]).toEqual({ outcome: 'passed_through', saturation: 0 });
    expect(released(recorder)).toEqual(['a']);
    expect(a.timings.flowQueueMs).toBe(0);
  });

  it('while saturated, sheds sheddable requests with pool_saturated and passes the others', () => {
    const { core, recorder } = stage(ONE_AT_A_TIME, false);
    core.submit(stageRequest({ id: 'a' }), ms(1), 'a');
    core.submit(stageRequest({ id: 'sheddable', priority: -2 }), ms(2), 's');
    core.submit(stageRequest({ id: 'standard', priority: 3 }), ms(3), 'b');
    expect(released(recorder)).toEqual(['a', 'standard']);
    expect(recorder.of('reject')).toEqual([[expect.objectContaining({ id: 'sheddable' }), 's', 'pool_saturated', 'the pool is saturated (1.00) and the request is sheddable (priority -2)']]);
  });
});

describe('FlowControlStage: bounded flows (maxFlows, flowGCTimeout)', () => {
  const forgotten = (recorder: Recorder) => recorder.of('flowsForgotten').flatMap(([flows]) => (flows as { fairnessId: string }[]).map((f) => f.fairnessId));

  it('forgets a flow at the first sweep after it has been idle for flowGCTimeout, and says so', () => {
    const { core, recorder, agenda } = stage({ ...ONE_AT_A_TIME, flowGCTimeout: 2_500 });
    core.start(micros(0));
    core.submit(stageRequest({ id: 'a', fairnessId: 'tenant-a' }), ms(0), 'a'); // dispatched at once: idle from 0
    core.submit(stageRequest({ id: 'b', fairnessId: 'tenant-b' }), ms(0), 'b'); // queued behind a
    expect(core.trackedFlows).toBe(2);
    core.onDone(done('a'), ms(1_500)); // b dispatched: tenant-b idle from 1.5 s
    agenda.runUntil(ms(2_999));
    expect(forgotten(recorder)).toEqual([]);
    agenda.runUntil(ms(3_000)); // the sweep at 3 s: tenant-a idle 3 s ≥ 2.5 s
    expect(forgotten(recorder)).toEqual(['tenant-a']);
    agenda.runUntil(ms(4_000)); // tenant-b idle 2.5 s
    expect(forgotten(recorder)).toEqual(['tenant-a', 'tenant-b']);
    expect(core.trackedFlows).toBe(0);
  });

  it('past maxFlows a new tenant takes an idle flow’s place; with every flow queued it is refused with too_many_flows', () => {
    const { core, recorder } = stage({ ...ONE_AT_A_TIME, maxFlows: 2 });
    core.submit(stageRequest({ id: 'a', fairnessId: 'tenant-a' }), ms(1), 'a'); // dispatched: tenant-a idle
    core.submit(stageRequest({ id: 'b', fairnessId: 'tenant-b' }), ms(2), 'b'); // queued
    core.submit(stageRequest({ id: 'c', fairnessId: 'tenant-c' }), ms(3), 'c'); // queued, in tenant-a's place
    expect(forgotten(recorder)).toEqual(['tenant-a']);
    core.submit(stageRequest({ id: 'd', fairnessId: 'tenant-d' }), ms(4), 'd');
    expect(recorder.of('arrived')[3]?.[2]).toEqual({ outcome: 'too_many_flows', maxFlows: 2 });
    expect(recorder.of('reject')).toEqual([
      [expect.objectContaining({ id: 'd' }), 'd', 'too_many_flows', 'flow control tracks 2 flows, each with requests queued (maxFlows 2): a new flow is refused until one of them empties'],
    ]);
    // A tracked tenant is never refused for the cap.
    core.submit(stageRequest({ id: 'b2', fairnessId: 'tenant-b' }), ms(5), 'b2');
    expect(recorder.of('reject')).toHaveLength(1);
    expect(core.trackedFlows).toBe(2);
  });

  it('a band config does not list goes when its last flow is forgotten; a listed one stays', () => {
    const { core, recorder, agenda } = stage({ ...ONE_AT_A_TIME, flowGCTimeout: 100, priorityBands: [{ priority: 3 }] });
    core.start(micros(0));
    core.submit(stageRequest({ id: 'a', priority: 3 }), ms(0), 'a');
    core.submit(stageRequest({ id: 'b', priority: 7, fairnessId: 'x' }), ms(0), 'b');
    core.onDone(done('a'), ms(10));
    core.onDone(done('b'), ms(20));
    agenda.runUntil(ms(1_000));
    expect(forgotten(recorder).sort()).toEqual(['default', 'x']);
    // The unlisted band is gone (a band is created again when a request of its priority comes).
    core.submit(stageRequest({ id: 'c', priority: 7, fairnessId: 'x' }), ms(1_001), 'c');
    expect(released(recorder)).toEqual(['a', 'b', 'c']);
  });

  it('100,000 one-off tenants through the core leave at most maxFlows tracked, and none after flowGCTimeout', () => {
    const { core, agenda } = stage({ saturationDetector: { type: 'concurrency-detector', parameters: { maxConcurrency: 1e9 } }, maxFlows: 1_000, flowGCTimeout: 1_000 });
    core.start(micros(0));
    for (let i = 0; i < 100_000; i++) {
      const id = `r${i}`;
      core.submit(stageRequest({ id, fairnessId: `tenant-${i}` }), ms(i / 100), id);
      core.onDone(done(id), ms(i / 100));
      expect(core.trackedFlows).toBeLessThanOrEqual(1_000);
    }
    agenda.runUntil(ms(3_000));
    expect(core.trackedFlows).toBe(0);
  });
});

describe('FlowControlStage: the queue report', () => {
  it('reports what waits, by model and band, every interval, changed or not; nothing when it is off', () => {
    const recorder = new Recorder();
    const agenda = new Agenda<FlowControlWakeUp>();
    const settings = flowControlSettingsFrom(
      { ...FlowControlConfigSchema.parse(ONE_AT_A_TIME), enabled: true, heartbeatTimeoutMs: 3_000, queueReportIntervalMs: 50 },
      createFlowControlRegistry(),
    );
    const core: FlowControlStage<Request, string> = new FlowControlStage(settings, recorder.port<FlowControlEffects<Request, string>>(), agenda.wakeUps((kind, atUs) => core.wake(kind, atUs)));
    core.onLifecycle(registered('i1'), micros(0));
    core.start(ms(0));
    core.submit(stageRequest({ id: 'running' }), ms(1), ''); // dispatched: the endpoint is now full
    core.submit(stageRequest({ id: 'c', priority: 4 }), ms(2), '');
    core.submit(stageRequest({ id: 's1', priority: -2 }), ms(3), '');
    core.submit(stageRequest({ id: 's2', priority: -2 }), ms(4), '');
    agenda.runUntil(ms(50));
    expect(recorder.of('queueReported')).toEqual([
      [
        ms(50),
        [
          { model: 'qwen3-14b', priority: 4, requests: 1 },
          { model: 'qwen3-14b', priority: -2, requests: 2 },
        ],
      ],
    ]);
    core.onDone(done('running'), ms(60)); // frees the endpoint: the critical one goes
    agenda.runUntil(ms(100));
    expect(recorder.of('queueReported')[1]).toEqual([ms(100), [{ model: 'qwen3-14b', priority: -2, requests: 2 }]]);
    expect(core.queueBands()).toEqual([{ model: 'qwen3-14b', priority: -2, requests: 2 }]);

    const { core: silent, recorder: none, agenda: idle } = stage();
    silent.start(ms(0));
    idle.runUntil(ms(1_000));
    expect(none.of('queueReported')).toEqual([]);
  });
});
