import { micros, type KvEvent } from '@sluice/contracts';
import { createRoutingRegistry } from '@sluice/policies';
import { describe, expect, it } from 'vitest';
import { Agenda, Recorder } from '../testing/recorder.js';
import { lifecycle, ms, registered, stageRequest } from '../testing/requests.js';
import type { RoutingEffects } from './routing.effects.js';
import { RoutingStage, type RoutingWakeUp } from './routing.stage.js';
import { routingSettingsFrom } from './routing.settings.js';

type Request = ReturnType<typeof stageRequest>;

const PRECISE = { weights: 'precise-prefix-cache:1' };

function stage(policy: string, params: unknown, kvEventRefreshMs = 50) {
  const recorder = new Recorder();
  const agenda = new Agenda<RoutingWakeUp>();
  const settings = routingSettingsFrom(
    { policy: policy as 'weighted', policies: { [policy]: params }, heartbeatTimeoutMs: 3_000, snapshotRefreshIntervalMs: 0, seed: 7, kvEventRefreshMs, kvEventIndexCapacity: 1_000 },
    7,
  );
  const core: RoutingStage<Request, string> = new RoutingStage(settings, createRoutingRegistry(), recorder.port<RoutingEffects<Request, string>>(), agenda.wakeUps((kind, atUs) => core.wake(kind, atUs)));
  for (const id of ['i1', 'i2', 'i3']) core.onLifecycle(registered(id));
  recorder.clear();
  return { core, recorder };
}

const stored = (instanceId: string, atMs: number, blocks: number[]): KvEvent => ({ instanceId, atUs: ms(atMs), stored: blocks, removed: [] });
const lastChoice = (recorder: Recorder) => String(recorder.of('handOn').at(-1)![2]);
const lastView = (recorder: Recorder) => recorder.of('decided').at(-1)![4] as { kvCacheAgeUs?: number };

describe('RoutingStage with the KV-event index', () => {
  it('keeps it only for a policy that reads it', () => {
    expect(stage('weighted', PRECISE).core.wantsKvEvents).toBe(true);
    expect(stage('weighted', {}).core.wantsKvEvents).toBe(false);
    expect(stage('least-loaded', {}).core.wantsKvEvents).toBe(false);
  });

  it('routes to the instance whose cache holds the prefix, once the view has refreshed (50 ms, BLIS)', () => {
    const { core, recorder } = stage('weighted', PRECISE);
    const prefix = [11, 12, 13];
    core.route(stageRequest({ id: 'first', blockHashes: prefix }), ms(0), 'a'); // takes the first snapshot
    core.onKv(stored('i3', 1, prefix));
    core.route(stageRequest({ id: 'early', blockHashes: prefix }), ms(10), 'b');
    expect(lastView(recorder).kvCacheAgeUs).toBe(ms(10));
    // Not visible yet at 10 ms: every cache looks alike to the scorer (all score 1).
    const early = recorder.of('decided').at(-1)![3] as { ranked: readonly { scores?: Record<string, number> }[] };
    expect(early.ranked.map((c) => c.scores?.['precise-prefix-cache'])).toEqual([1, 1, 1]);
    core.route(stageRequest({ id: 'late', blockHashes: prefix }), ms(50), 'c');
    expect(lastChoice(recorder)).toBe('i3');
    expect(lastView(recorder).kvCacheAgeUs).toBe(0);
  });

  it('forgets an instance’s cache when it leaves routing', () => {
    const { core, recorder } = stage('weighted', PRECISE, 0);
    const prefix = [21, 22];
    core.onKv(stored('i2', 1, prefix));
    core.onKv(stored('i3', 1, [21]));
    core.route(stageRequest({ id: 'a', blockHashes: prefix }), ms(2), 'a');
    expect(lastChoice(recorder)).toBe('i2');
    core.onLifecycle(lifecycle('i2', 'deregister', ms(3)));
    core.onLifecycle(registered('i2', ms(4)));
    core.route(stageRequest({ id: 'b', blockHashes: prefix }), ms(5), 'b');
    expect(lastChoice(recorder)).toBe('i3');
  });

  it('ignores KV events when its policy does not read them', () => {
    const { core, recorder } = stage('weighted', {});
    core.onKv(stored('i1', 1, [1]));
    core.route(stageRequest({ id: 'a', blockHashes: [1] }), micros(100_000), 'a');
    expect(lastView(recorder).kvCacheAgeUs).toBeUndefined();
  });
});

describe('RoutingStage with kv-router', () => {
  it('follows KV events by default and sends a prefix to the instance whose cache holds it', () => {
    const { core, recorder } = stage('kv-router', {}, 0);
    expect(core.wantsKvEvents).toBe(true);
    core.onKv(stored('i2', 1, [31, 32, 33, 34]));
    core.route(stageRequest({ id: 'a', inputTokens: 64, blockHashes: [31, 32, 33, 34] }), ms(2), 'a');
    expect(lastChoice(recorder)).toBe('i2');
    expect(stage('kv-router', { useKvEvents: false }).core.wantsKvEvents).toBe(false);
  });
});
