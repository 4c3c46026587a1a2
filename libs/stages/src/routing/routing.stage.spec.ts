import { micros } from '@sluice/contracts';
import { createRoutingRegistry, type ClusterView, type RoutingDecision } from '@sluice/policies';
import { describe, expect, it } from 'vitest';
import { Agenda, Recorder } from '../testing/recorder.js';
import { lifecycle, ms, registered, snapshot, stageRequest } from '../testing/requests.js';
import type { RoutingEffects } from './routing.effects.js';
import { RoutingStage, type RoutingWakeUp } from './routing.stage.js';
import type { RoutingSettings } from './routing.settings.js';

type Request = ReturnType<typeof stageRequest>;

function stage(overrides: Partial<RoutingSettings> = {}, instances = ['i1', 'i2']) {
  const recorder = new Recorder();
  const agenda = new Agenda<RoutingWakeUp>();
  const settings: RoutingSettings = { policy: 'least-loaded', params: {}, heartbeatTimeoutUs: ms(3_000), snapshotRefreshIntervalUs: micros(0), seed: 7, ...overrides };
  const core: RoutingStage<Request, string> = new RoutingStage(settings, createRoutingRegistry(), recorder.port<RoutingEffects<Request, string>>(), agenda.wakeUps((kind, atUs) => core.wake(kind, atUs)));
  for (const id of instances) core.onLifecycle(registered(id));
  recorder.clear();
  return { core, recorder, agenda };
}

const chosen = (recorder: Recorder) => recorder.of('handOn').map(([r, , instance]) => `${(r as Request).id}→${String(instance)}`);
const inFlight = (core: RoutingStage<Request, string>) => Object.fromEntries(core.instances(ms(1)).map((i) => [i.instanceId, i.inFlight]));

describe('RoutingStage', () => {
  it('reports the decision and the view it was made from, then hands the request to the chosen instance', () => {
    const { core, recorder } = stage();
    const a = stageRequest({ id: 'a' });
    core.route(a, ms(1), 'span');
    expect(recorder.names()).toEqual(['decided', 'handOn']);
    const [, carried, policy, decision, view] = recorder.of('decided')[0]!;
    expect([carried, policy]).toEqual(['span', 'least-loaded']);
    expect((view as { instances: unknown[] }).instances).toHaveLength(2);
    expect(recorder.of('handOn')[0]).toEqual([a, 'span', (decision as RoutingDecision).instance.instanceId]);
  });

  it('counts in flight at dispatch and until the instance reports done, so least-loaded spreads a burst', () => {
    const { core, recorder } = stage();
    for (const id of ['a', 'b', 'c', 'd']) core.route(stageRequest({ id }), ms(1), id);
    expect(inFlight(core)).toEqual({ i1: 2, i2: 2 });
    const [first] = recorder.of('handOn');
    core.onDone({ requestId: 'a', instanceId: String(first![2]), reason: 'ok', atUs: ms(2) });
    expect(Object.values(inFlight(core)).sort()).toEqual([1, 2]);
  });

  it('a done event for a request another replica dispatched (every replica hears every one) leaves its counts alone', () => {
    const { core, recorder } = stage();
    for (const id of ['a', 'b']) core.route(stageRequest({ id }), ms(1), id);
    expect(inFlight(core)).toEqual({ i1: 1, i2: 1 });
    for (const instanceId of ['i1', 'i2']) core.onDone({ requestId: 'routed-by-another-replica', instanceId, reason: 'ok', atUs: ms(2) });
    expect(inFlight(core)).toEqual({ i1: 1, i2: 1 });
    // Its own requests still leave as they should, and a repeated done takes nothing more off.
    for (const [r, , instance] of recorder.of('handOn')) core.onDone({ requestId: (r as Request).id, instanceId: String(instance), reason: 'ok', atUs: ms(3) });
    for (const [r, , instance] of recorder.of('handOn')) core.onDone({ requestId: (r as Request).id, instanceId: String(instance), reason: 'ok', atUs: ms(4) });
    expect(inFlight(core)).toEqual({ i1: 0, i2: 0 });
  });

  it('records the request’s blocks on the chosen instance right after the decision: weighted keeps a prefix together', () => {
    const { core, recorder } = stage({ policy: 'weighted', params: {} }, ['i1', 'i2', 'i3', 'i4']);
    const prefix = [101, 102, 103, 104];
    for (const id of ['a', 'b', 'c']) core.route(stageRequest({ id, blockHashes: prefix }), ms(1), id);
    expect(new Set(recorder.of('handOn').map(([, , instance]) => instance)).size).toBe(1);
    expect(chosen(recorder)).toHaveLength(3);
  });

  it('with nobody to route to, once past its start-up window, ends the request with no_worker naming its model', () => {
    const { core, recorder } = stage({}, []);
    core.start(ms(0));
    const a = stageRequest({ id: 'a', model: 'llama-3.1-8b' });
    core.route(a, ms(3_001), 'span');
    expect(recorder.of('decided')[0]?.[3]).toBeNull();
    expect(recorder.of('reject')).toEqual([[a, 'span', 'no_worker', 'no worker instance serves model "llama-3.1-8b" (none is known)']]);
  });

  it('when every instance is absent (no responder), the request goes back to its gateway to be routed again later', () => {
    const { core, recorder } = stage({}, ['i1']);
    const a = stageRequest({ id: 'a' });
    core.route(a, ms(1), 'span');
    core.handoffRefused(a, 'span', 'i1', 'no service is listening on sluice.v1.worker.i1.submit', ms(2), 'no_responders');
    expect(inFlight(core)).toEqual({ i1: 0 });
    expect(recorder.of('handBack').map((call) => (call[2] as { reason: string }).reason)).toEqual(['next_unavailable']);
    expect(recorder.of('reject')).toEqual([]);
  });

  it('a handoff the only instance refuses (a nack) undoes its accounting and ends the request with worker_unreachable', () => {
    const { core, recorder } = stage({}, ['i1']);
    const a = stageRequest({ id: 'a' });
    core.route(a, ms(1), 'span');
    core.handoffRefused(a, 'span', 'i1', 'no service is listening on sluice.v1.worker.i1.submit', ms(2));
    expect(inFlight(core)).toEqual({ i1: 0 });
    expect(recorder.of('reject')).toEqual([[a, 'span', 'worker_unreachable', 'no service is listening on sluice.v1.worker.i1.submit (tried 1 instance)']]);
  });

  it('a refused handoff is routed again among the instances that have not refused it (a dead or draining one)', () => {
    const { core, recorder } = stage({}, ['i1', 'i2', 'i3']);
    const a = stageRequest({ id: 'a' });
    core.route(a, ms(1), 'span');
    const first = recorder.of('handOn')[0]?.[2] as string;
    core.handoffRefused(a, 'span', first, 'no responders', ms(2));
    const second = recorder.of('handOn')[1]?.[2] as string;
    expect(second).not.toBe(first);
    core.handoffRefused(a, 'span', second, 'no responders', ms(3));
    const third = recorder.of('handOn')[2]?.[2] as string;
    expect(new Set([first, second, third]).size).toBe(3);
    expect(recorder.of('reject')).toEqual([]);
    expect(inFlight(core)).toEqual({ i1: third === 'i1' ? 1 : 0, i2: third === 'i2' ? 1 : 0, i3: third === 'i3' ? 1 : 0 });
  });

  it('an instance that did not ack in time may still run the copy: it goes to no other instance but back to its gateway', () => {
    for (const why of ['timeout', 'closed'] as const) {
      const { core, recorder } = stage({}, ['i1', 'i2', 'i3']);
      const a = stageRequest({ id: 'a' });
      core.route(a, ms(1), 'span');
      const first = recorder.of('handOn')[0]?.[2] as string;
      core.handoffRefused(a, 'span', first, `no ack from ${first} in time`, ms(2), why);
      expect(recorder.of('handOn')).toHaveLength(1);
      expect(recorder.of('handBack').map((call) => call[2])).toEqual([
        { resumeAt: 'router', reason: 'next_unavailable', message: `no ack from ${first} in time (the copy may still run there: not routed again)` },
      ]);
      expect(inFlight(core)).toEqual({ i1: 0, i2: 0, i3: 0 });
    }
  });

  it('just started and no instance heard yet, it hands the request back instead of answering no_worker', () => {
    const { core, recorder } = stage({}, []);
    core.start(ms(0));
    core.route(stageRequest({ id: 'early' }), ms(100), 'early');
    expect(recorder.of('handBack').map((call) => (call[2] as { resumeAt: string }).resumeAt)).toEqual(['router']);
    core.route(stageRequest({ id: 'late' }), ms(60_000), 'late');
    expect(recorder.of('reject').map((call) => call[2])).toEqual(['no_worker']);
  });

  it('a draining instance leaves routing at once and stays out while its heartbeats go on', () => {
    const { core, recorder } = stage({}, ['i1', 'i2']);
    core.onLifecycle(lifecycle('i1', 'drain', ms(1)));
    core.onLifecycle(lifecycle('i1', 'heartbeat', ms(2)));
    for (const id of ['a', 'b', 'c']) core.route(stageRequest({ id }), ms(3), id);
    expect(recorder.of('handOn').map((call) => call[2])).toEqual(['i2', 'i2', 'i2']);
  });

  it('when every instance of the model is draining (a restart under way), the request goes back to its gateway, not no_worker', () => {
    const { core, recorder } = stage({}, ['i1', 'i2']);
    core.onLifecycle(lifecycle('i1', 'drain', ms(1)));
    core.onLifecycle(lifecycle('i2', 'drain', ms(1)));
    core.route(stageRequest({ id: 'a' }), ms(2), 'a');
    expect(recorder.of('handBack').map((call) => (call[2] as { reason: string }).reason)).toEqual(['next_unavailable']);
    expect(recorder.of('reject')).toEqual([]);
    // Another model with no instance at all is still no_worker.
    core.route(stageRequest({ id: 'b', model: 'llama-3.1-8b' }), ms(3), 'b');
    expect(recorder.of('reject').map((call) => call[2])).toEqual(['no_worker']);
  });

  it('before it has started (its handlers came first on a busy machine), an empty pool hands requests back, not no_worker', () => {
    const { core, recorder } = stage({}, []);
    core.route(stageRequest({ id: 'early' }), ms(1), 'early');
    expect(recorder.of('handBack').map((call) => (call[2] as { reason: string }).reason)).toEqual(['next_unavailable']);
    expect(recorder.of('reject')).toEqual([]);
  });

  it('just after its last instance left, an empty pool hands requests back for a heartbeat timeout, then answers no_worker', () => {
    const { core, recorder } = stage({}, ['i1']);
    core.onLifecycle(lifecycle('i1', 'deregister', ms(1)));
    core.route(stageRequest({ id: 'soon' }), ms(2), 'soon');
    expect(recorder.of('handBack').map((call) => (call[2] as { reason: string }).reason)).toEqual(['next_unavailable']);
    core.route(stageRequest({ id: 'later' }), ms(60_000), 'later');
    expect(recorder.of('reject').map((call) => call[2])).toEqual(['no_worker']);
  });

  it('a late done from the instance a request migrated away from leaves its new owner alone', () => {
    const { core, recorder } = stage({}, ['i1', 'i2']);
    const a = stageRequest({ id: 'a' });
    core.route(a, ms(1), 'a');
    const first = recorder.of('handOn')[0]?.[2] as string;
    const other = first === 'i1' ? 'i2' : 'i1';
    core.handoffRefused(a, 'a', first, 'nack', ms(2));
    core.onDone({ requestId: 'a', instanceId: first, reason: 'cancelled', atUs: ms(3) });
    core.onLifecycle(lifecycle(other, 'deregister', ms(4)));
    expect(recorder.of('instanceLost')).toEqual([[other, [a], 'deregistered']]);
  });

  it('reports the requests a deregistered instance held, once each, and forgets it', () => {
    const { core, recorder } = stage({}, ['i1']);
    const held = ['a', 'b', 'c'].map((id) => stageRequest({ id }));
    for (const r of held) core.route(r, ms(1), r.id);
    core.onDone({ requestId: 'b', instanceId: 'i1', reason: 'ok', atUs: ms(2) });
    core.onLifecycle(lifecycle('i1', 'deregister', ms(3)));
    expect(recorder.of('instanceLost')).toEqual([['i1', [held[0], held[2]], 'deregistered']]);
    expect(core.instanceCount()).toBe(0);
  });

  it('sweeps every third of the heartbeat timeout: an instance silent past it is lost with what it held', () => {
    const { core, recorder, agenda } = stage({}, ['quiet', 'chatty']);
    core.start(micros(0));
    const a = stageRequest({ id: 'a' });
    core.route(a, ms(1), 'a');
    core.route(stageRequest({ id: 'b' }), ms(1), 'b');
    for (const at of [1_000, 2_000, 3_000]) core.onLifecycle(lifecycle('chatty', 'heartbeat', ms(at)));
    agenda.runUntil(ms(4_000));
    const lost = recorder.of('instanceLost');
    expect(lost).toHaveLength(1);
    expect(lost[0]?.[0]).toBe('quiet');
    expect(lost[0]?.[2]).toBe('silent');
    expect(core.instances(ms(4_000)).map((i) => i.instanceId)).toEqual(['chatty']);
  });

  it('with a refresh interval, the policy sees an instance’s snapshot only from the next refresh on', () => {
    const { core, recorder, agenda } = stage({ snapshotRefreshIntervalUs: ms(50) });
    core.start(micros(0));
    // Read as each decision is made: a view's instances are the decision's own until the next view.
    const lastDepthOfI1 = () => (recorder.of('decided').at(-1)![4] as ClusterView).instances.find((i) => i.instanceId === 'i1')?.queueDepth;
    core.onSnapshot(snapshot('i1', ms(10), { queueDepth: 9 }));
    core.route(stageRequest({ id: 'before' }), ms(20), '');
    const before = lastDepthOfI1();
    agenda.runUntil(ms(50));
    core.route(stageRequest({ id: 'after' }), ms(60), '');
    expect([before, lastDepthOfI1()]).toEqual([0, 9]);
    expect(agenda.due('refresh')).toEqual([ms(100)]);
  });

  it('announces each instance that registers', () => {
    const { core, recorder } = stage({}, []);
    core.onLifecycle(registered('i9'));
    expect(recorder.of('instanceJoined')).toEqual([['i9', 'w-i9']]);
  });

  describe('busy thresholds (Dynamo’s push router: only free instances are candidates)', () => {
    const busyStage = (busyThresholds: RoutingSettings['busyThresholds']) => {
      const made = stage({ busyThresholds }, ['i1', 'i2']);
      made.core.start(ms(0));
      return made;
    };
    const prefilling = (core: RoutingStage<Request, string>, id: string, tokens: number) => core.onSnapshot(snapshot(id, ms(1), { activePrefillTokens: tokens }));

    it('routes only among the free instances, and reports how many were left out', () => {
      const { core, recorder } = busyStage({ activePrefillTokensThreshold: 100 });
      prefilling(core, 'i1', 500);
      for (const id of ['a', 'b', 'c']) core.route(stageRequest({ id }), ms(2), id);
      expect(chosen(recorder)).toEqual(['a→i2', 'b→i2', 'c→i2']);
      expect(recorder.of('decided')[0]?.[5]).toEqual({ busy: 1, total: 2 });
    });

    it('answers all_workers_busy only when every instance of the model is busy, and routes again once one is free', () => {
      const { core, recorder } = busyStage({ activePrefillTokensThreshold: 100 });
      prefilling(core, 'i1', 500);
      prefilling(core, 'i2', 101);
      const a = stageRequest({ id: 'a' });
      core.route(a, ms(2), 'span');
      expect(recorder.of('reject')).toEqual([[a, 'span', 'all_workers_busy', 'Service temporarily unavailable: All workers are busy, please retry later']]);
      expect(recorder.of('decided')[0]?.[5]).toEqual({ busy: 2, total: 2 });
      prefilling(core, 'i2', 100); // at the threshold is not past it
      core.route(stageRequest({ id: 'b' }), ms(3), 'span');
      expect(chosen(recorder)).toEqual(['b→i2']);
    });

    it('without thresholds nothing is busy; a model override of null switches the check off for that model', () => {
      for (const busyThresholds of [undefined, { activePrefillTokensThreshold: 100, models: { 'qwen3-14b': { activePrefillTokensThreshold: null } } }]) {
        const { core, recorder } = busyStage(busyThresholds);
        prefilling(core, 'i1', 500);
        prefilling(core, 'i2', 500);
        core.route(stageRequest({ id: 'a' }), ms(2), 'span');
        expect(recorder.of('reject')).toEqual([]);
        expect(chosen(recorder)).toHaveLength(1);
      }
    });

    it('takes admission’s newer thresholds at run time and ignores older ones', () => {
      const { core, recorder } = busyStage({});
      prefilling(core, 'i1', 500);
      prefilling(core, 'i2', 500);
      expect(core.onBusyThresholds({ settings: { activePrefillTokensThreshold: 100 }, changedAtUs: 10 })).toBe(true);
      expect(core.onBusyThresholds({ settings: {}, changedAtUs: 0 })).toBe(false); // a restarted admission replica's configured values
      core.route(stageRequest({ id: 'a' }), ms(2), 'span');
      expect(recorder.of('reject').map(([, , reason]) => reason)).toEqual(['all_workers_busy']);
      expect(core.busyThresholds()).toEqual({ settings: { activePrefillTokensThreshold: 100 }, changedAtUs: 10 });
    });

    it('no instance at all is still no_worker, not a busy cluster', () => {
      const { core, recorder } = stage({ busyThresholds: { activePrefillTokensThreshold: 0 } }, []);
      core.start(ms(0));
      core.route(stageRequest({ id: 'a' }), ms(3_001), 'span');
      expect(recorder.of('reject').map(([, , reason]) => reason)).toEqual(['no_worker']);
    });
  });
});
