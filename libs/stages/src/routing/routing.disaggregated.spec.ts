import { micros } from '@sluice/contracts';
import { createRoutingRegistry } from '@sluice/policies';
import { describe, expect, it } from 'vitest';
import { Agenda, Recorder } from '../testing/recorder.js';
import { lifecycle, ms, registered, stageRequest } from '../testing/requests.js';
import type { PdPlacementInfo, RoutingEffects } from './routing.effects.js';
import { RoutingStage, type RoutingWakeUp } from './routing.stage.js';
import type { RoutingSettings } from './routing.settings.js';

type Request = ReturnType<typeof stageRequest>;

/** p1, p2 prefill; d1, d2 decode; least-loaded picks each among its role. */
function stage(overrides: Partial<RoutingSettings> = {}) {
  const recorder = new Recorder();
  const agenda = new Agenda<RoutingWakeUp>();
  const settings: RoutingSettings = { policy: 'least-loaded', params: {}, heartbeatTimeoutUs: ms(3_000), snapshotRefreshIntervalUs: micros(0), seed: 7, disaggregation: { kind: 'always' }, ...overrides };
  const core: RoutingStage<Request, string> = new RoutingStage(settings, createRoutingRegistry(), recorder.port<RoutingEffects<Request, string>>(), agenda.wakeUps((kind, atUs) => core.wake(kind, atUs)));
  for (const [id, role] of [['p1', 'prefill'], ['p2', 'prefill'], ['d1', 'decode'], ['d2', 'decode']] as const) core.onLifecycle({ ...registered(id), role });
  recorder.clear();
  return { core, recorder };
}

const inFlight = (core: RoutingStage<Request, string>) => Object.fromEntries(core.instances(ms(1)).map((i) => [i.instanceId, i.inFlight]));
const handOns = (recorder: Recorder) => recorder.of('handOn').map(([r, , decode, prefill]) => `${(r as Request).id}: ${String(prefill)}→${String(decode)}`);

describe('RoutingStage, disaggregated prefill/decode', () => {
  it('hands each request to a decode instance naming a prefill instance, and counts it in flight on both', () => {
    const { core, recorder } = stage();
    for (const id of ['a', 'b']) core.route(stageRequest({ id, inputTokens: 1_024 }), ms(1), id);
    expect(handOns(recorder)).toEqual(['a: p1→d1', 'b: p2→d2']);
    expect(inFlight(core)).toEqual({ p1: 1, p2: 1, d1: 1, d2: 1 });
    const pd = recorder.of('decided')[0]?.[6] as PdPlacementInfo;
    expect(pd).toEqual({ placement: 'remote', prefillInstanceId: 'p1', nonCachedTokens: 1_024 });
  });

  it('round-robin spreads both picks: each has its own cursor (one shared cursor would land on the same instance of each list every time)', () => {
    const { core, recorder } = stage({ policy: 'round-robin' });
    for (const id of ['a', 'b', 'c', 'd']) core.route(stageRequest({ id }), ms(1), id);
    const decodes = recorder.of('handOn').map(([, , decode]) => decode);
    const prefills = recorder.of('handOn').map(([, , , prefill]) => prefill);
    expect(new Set(decodes)).toEqual(new Set(['d1', 'd2']));
    expect(new Set(prefills)).toEqual(new Set(['p1', 'p2']));
  });

  it("takes a prefill instance's done off that instance only, and the decode instance's done off both", () => {
    const { core, recorder } = stage();
    core.route(stageRequest({ id: 'a' }), ms(1), 'a');
    core.onDone({ requestId: 'a', instanceId: 'p1', reason: 'ok', atUs: ms(2), prefillOnly: true });
    expect(inFlight(core)).toMatchObject({ p1: 0, d1: 1 });
    core.onDone({ requestId: 'a', instanceId: 'd1', reason: 'ok', atUs: ms(3) });
    expect(inFlight(core)).toMatchObject({ p1: 0, d1: 0 });
    // A job that never reached its prefill instance (prefilled locally): the request's end releases both.
    core.route(stageRequest({ id: 'b' }), ms(4), 'b');
    const decodeOfB = String(recorder.of('handOn')[1]?.[2]);
    core.onDone({ requestId: 'b', instanceId: decodeOfB, reason: 'ok', atUs: ms(5) });
    expect(inFlight(core)).toEqual({ p1: 0, p2: 0, d1: 0, d2: 0 });
  });

  it('below the Dynamo threshold the decode instance prefills itself: no prefill instance named or counted', () => {
    const { core, recorder } = stage({ disaggregation: { kind: 'dynamo', maxLocalPrefillLength: 512 } });
    // A decode-only instance always needs a prefill instance: make the decode side able to prefill.
    core.onLifecycle({ ...registered('d1'), role: 'both' });
    core.onLifecycle(lifecycle('d2', 'deregister', ms(0)));
    core.onLifecycle(lifecycle('p2', 'deregister', ms(0)));
    recorder.clear();
    core.route(stageRequest({ id: 'short', inputTokens: 256 }), ms(1), 'short');
    core.route(stageRequest({ id: 'long', inputTokens: 2_048 }), ms(1), 'long');
    expect(handOns(recorder)).toEqual(['short: undefined→d1', 'long: p1→d1']);
    expect((recorder.of('decided')[0]?.[6] as PdPlacementInfo).placement).toBe('local-below-threshold');
  });

  it('a request whose prefill instance is lost before it answered is lost with it (it migrates); one it already answered is not', () => {
    const { core, recorder } = stage();
    const a = stageRequest({ id: 'a' });
    const b = stageRequest({ id: 'b' });
    core.route(a, ms(1), 'a'); // p1 → d1
    core.route(b, ms(1), 'b'); // p2 → d2
    core.onDone({ requestId: 'b', instanceId: 'p2', reason: 'ok', atUs: ms(2), prefillOnly: true });
    core.onLifecycle(lifecycle('p1', 'deregister', ms(3)));
    core.onLifecycle(lifecycle('p2', 'deregister', ms(3)));
    expect(recorder.of('instanceLost')).toEqual([
      ['p1', [a], 'deregistered'],
      ['p2', [], 'deregistered'],
    ]);
    // Its decode instance no longer counts it: the gateway re-submits it as a new attempt.
    expect(inFlight(core)).toEqual({ d1: 0, d2: 1 });
  });

  it('a refused handoff to the decode instance releases its prefill pick too, and routes the request again', () => {
    const { core, recorder } = stage();
    const a = stageRequest({ id: 'a' });
    core.route(a, ms(1), 'a');
    core.handoffRefused(a, 'a', 'd1', 'nack', ms(2));
    expect(handOns(recorder)[0]).toBe('a: p1→d1');
    expect(handOns(recorder)[1]).toMatch(/^a: p[12]→d2$/);
    const counts = inFlight(core);
    expect([counts.p1! + counts.p2!, counts.d1, counts.d2]).toEqual([1, 0, 1]);
  });

  it('with every decode instance busy, the request ends all_workers_busy', () => {
    const { core, recorder } = stage({ busyThresholds: { activeDecodeBlocksThreshold: 0.5 } });
    for (const id of ['d1', 'd2']) core.onSnapshot({ instanceId: id, workerId: 'w', rank: 0, atUs: ms(1), queueDepth: 0, batchSize: 1, kvUtilization: 0.9, activePrefillTokens: 0, activeDecodeBlocks: 900, inFlightRequests: 1 } as never);
    core.route(stageRequest({ id: 'a' }), ms(2), 'a');
    expect(recorder.of('reject').map(([, , reason]) => reason)).toEqual(['all_workers_busy']);
  });
});
