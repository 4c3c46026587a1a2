import fc from 'fast-check';
import { micros, type Micros } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import { Agenda, Recorder } from '../testing/recorder.js';
import { ms } from '../testing/requests.js';
import type { GatewayEffects, GatewayFailure, GatewayRequest, NextAttempt } from './gateway.effects.js';
import { GatewayStage, type GatewayWakeUp } from './gateway.stage.js';
import { gatewaySettingsFrom, type GatewaySettings } from './gateway.settings.js';

interface Request extends GatewayRequest {
  readonly blocks: string;
}

type End = { readonly instance: string };

const settings = (overrides: Partial<GatewaySettings> = {}): GatewaySettings => ({
  ...gatewaySettingsFrom({ requestTimeoutMs: 60_000, heartbeatTimeoutMs: 3_000, migrationLimit: 3, limits: { maxStreamDurationMs: 0 } }, 2_000),
  ...overrides,
});

function gateway(overrides: Partial<GatewaySettings> = {}) {
  const recorder = new Recorder();
  const agenda = new Agenda<GatewayWakeUp>();
  const reattempt = (previous: Request, _carried: string, next: NextAttempt): Request => ({ ...previous, ...next, blocks: `${previous.blocks}+${next.outputTokens}` });
  const core: GatewayStage<Request, string, End> = new GatewayStage(
    settings(overrides),
    recorder.port<GatewayEffects<Request, string, End>>(),
    agenda.wakeUps((kind, atUs) => core.wake(kind, atUs)),
    reattempt,
  );
  return { core, recorder, agenda };
}

function request(id: string, fields: Partial<Request> = {}): Request {
  return { id, attempt: 0, inputTokens: 100, maxTokens: 10, arrivalUs: micros(0), deadlineUs: ms(60_000), blocks: 'p', ...fields };
}

const named = (recorder: Recorder, name: string) => recorder.of(name);
const failures = (recorder: Recorder) => named(recorder, 'fail').map(([r, , f]) => `${(r as Request).id}:${(f as GatewayFailure).reason}`);
const handOns = (recorder: Recorder) => named(recorder, 'handOn').map(([r, , stage, at]) => `${(r as Request).id}#${(r as Request).attempt}→${String(stage)}@${Number(at) / 1000}`);
const tokens = (recorder: Recorder) => named(recorder, 'tokens').reduce((sum, call) => sum + Number(call[2]), 0);

describe('GatewayStage', () => {
  it('hands a request it takes to admission and asks to be woken at its deadline', () => {
    const { core, recorder, agenda } = gateway();
    core.receive(request('a', { deadlineUs: ms(60_000) }), 'span-a', ms(1));
    expect(handOns(recorder)).toEqual(['a#0→admission@1']);
    expect(agenda.due('deadline')).toEqual([ms(60_000)]);
    expect(core.openCount).toBe(1);
  });

  it('the deadline on the wire is the one it enforces: a stream with a shorter cap ends as stream_too_long at that cap', () => {
    const { core, recorder, agenda } = gateway({ maxStreamDurationUs: ms(5_000) });
    const stream = request('s', { arrivalUs: ms(10), deadlineUs: core.deadlineOf(ms(10), true) });
    const plain = request('p', { arrivalUs: ms(10), deadlineUs: core.deadlineOf(ms(10), false) });
    expect([stream.deadlineUs, plain.deadlineUs]).toEqual([ms(5_010), ms(60_010)]);
    core.receive(stream, 's', ms(10), true);
    core.receive(plain, 'p', ms(10), false);
    agenda.runUntil(ms(60_010));
    expect(failures(recorder)).toEqual(['s:stream_too_long', 'p:timeout']);
    expect(named(recorder, 'fail').map(([, , f]) => (f as GatewayFailure).message)).toEqual([
      'the stream was open longer than 5000 ms (gateway.limits.maxStreamDurationMs)',
      'no answer within 60000 ms',
    ]);
    expect(named(recorder, 'cancel').map(([, c]) => c)).toEqual([
      { requestId: 's', reason: 'ended' },
      { requestId: 'p', reason: 'timeout' },
    ]);
  });

  it('streams each token once: a duplicate frame adds nothing, a lost one is made up by the next, the end fills the rest', () => {
    const { core, recorder } = gateway();
    core.receive(request('a', { maxTokens: 6 }), 'span', ms(0));
    core.onTokens('a', 0, 1, 1, ms(10));
    core.onTokens('a', 0, 1, 1, ms(11)); // duplicate
    core.onTokens('a', 0, 1, 3, ms(12)); // the frame for 2 was lost
    core.onTokens('a', 0, 2, undefined, ms(13)); // a frame without the running count: taken as it says
    expect(named(recorder, 'tokens').map((call) => call[2])).toEqual([1, 2, 2]);
    core.onEnd('a', 0, 6, { instance: 'w-r0' }, ms(20));
    expect(tokens(recorder)).toBe(6);
    expect(named(recorder, 'complete').map(([, , completion]) => completion)).toEqual([{ end: { instance: 'w-r0' } }]);
    expect(named(recorder, 'cancel')).toEqual([]);
    expect(core.openCount).toBe(0);
    // Whatever comes after the end changes nothing.
    core.onTokens('a', 0, 1, 7, ms(21));
    core.onError('a', 0, 'injected_server_error', 'late', 'worker', ms(22));
    expect(recorder.names().filter((n) => n === 'tokens' || n === 'fail' || n === 'complete')).toHaveLength(5);
  });

  it('a stage’s error ends the request with that stage named, and every copy downstream lets it go', () => {
    const { core, recorder } = gateway();
    core.receive(request('a'), 'span', ms(0));
    core.onError('a', 0, 'flow_capacity', 'band full', 'flow', ms(3));
    // A 429 with no estimate from its stage: the default retry-after.
    expect(named(recorder, 'fail')).toEqual([[request('a'), 'span', { reason: 'flow_capacity', message: 'band full', stage: 'flow', retryAfterS: 1 }, ms(3)]]);
    expect(named(recorder, 'cancel').map(([, c]) => c)).toEqual([{ requestId: 'a', reason: 'ended' }]);
  });

  it('answers a 429 or 503 with a retry-after: the stage\'s estimate rounded up to seconds, else the default; other failures with none', () => {
    const { core, recorder } = gateway();
    for (const id of ['a', 'b', 'c', 'd']) core.receive(request(id), 'span', ms(0));
    core.onError('a', 0, 'insufficient_tokens', 'bucket low', 'admission', ms(1), 2_400);
    core.onError('b', 0, 'all_workers_busy', 'busy', 'router', ms(1));
    core.onError('c', 0, 'injected_invalid_request', 'bad', 'worker', ms(1), 5_000);
    core.clientGone('d', ms(1));
    const retryAfter = Object.fromEntries(named(recorder, 'fail').map(([r, , f]) => [(r as Request).id, (f as GatewayFailure).retryAfterS]));
    expect(retryAfter).toEqual({ a: 3, b: 1, c: undefined, d: 1 });
  });

  it('tries admission again with doubling pauses while it does not ack, and ends the request when the window closes', () => {
    // Window: two heartbeat timeouts of 300 ms.
    const { core, recorder, agenda } = gateway({ resubmitWindowUs: ms(600) });
    core.receive(request('a', { deadlineUs: micros(Number.POSITIVE_INFINITY) }), 'span', ms(0));
    for (let i = 0; i < 10 && failures(recorder).length === 0; i++) {
      const [last] = named(recorder, 'handOn').slice(-1);
      core.handoffRefused('a', 0, 'no_responders', 'no service is listening', last![3] as Micros);
      agenda.runUntil(Number.POSITIVE_INFINITY);
    }
    // 0, +50, +100, +200 = 350; the next pause (400) would pass 600.
    expect(handOns(recorder)).toEqual(['a#0→admission@0', 'a#0→admission@50', 'a#0→admission@150', 'a#0→admission@350']);
    expect(failures(recorder)).toEqual(['a:admission_unavailable']);
  });

  it('a nack is final at once; a refusal of an attempt already replaced changes nothing', () => {
    const { core, recorder } = gateway();
    core.receive(request('a'), 'span', ms(0));
    core.handoffRefused('a', 0, 'nack', 'refused: bad field', ms(1));
    expect(failures(recorder)).toEqual(['a:admission_unavailable']);
    core.receive(request('b'), 'span', ms(0));
    core.onMigrate({ requestId: 'b', attempt: 0, reason: 'worker_lost', resumeAt: 'router', holder: 'w-r0' }, ms(5));
    core.handoffRefused('b', 0, 'nack', 'stale', ms(6));
    expect(failures(recorder)).toEqual(['a:admission_unavailable']);
  });

  it('re-submits a request its worker lost as the next attempt, with the tokens already sent appended to its prompt', () => {
    const { core, recorder } = gateway();
    core.receive(request('a', { inputTokens: 100, maxTokens: 10 }), 'span', ms(0));
    core.onHeld({ requestId: 'a', attempt: 0, stage: 'worker', holder: 'w-r0' }, ms(1));
    core.onTokens('a', 0, 4, 4, ms(2));
    core.onMigrate({ requestId: 'a', attempt: 0, reason: 'worker_lost', resumeAt: 'router', holder: 'w-r0' }, ms(3));
    expect(named(recorder, 'migrated').map(([, , m]) => m)).toEqual([{ reason: 'worker_lost', from: 'w-r0', resumeAt: 'router', attempt: 1, tokensSent: 4 }]);
    expect(named(recorder, 'cancel').map(([, c]) => c)).toEqual([{ requestId: 'a', reason: 'superseded', attempt: 0 }]);
    const [next] = named(recorder, 'handOn').slice(-1);
    expect(next![0]).toEqual({ ...request('a'), attempt: 1, inputTokens: 104, maxTokens: 6, outputTokens: 4, blocks: 'p+4' });
    expect(next![2]).toBe('router');
    // The new attempt's tokens count from where the client stands; the old attempt's frames are stale.
    core.onTokens('a', 0, 1, 5, ms(4));
    core.onTokens('a', 1, 1, 1, ms(5));
    core.onEnd('a', 1, 6, { instance: 'w-r1' }, ms(6));
    expect(tokens(recorder)).toBe(10);
    expect(named(recorder, 'complete')).toHaveLength(1);
  });

  it('the deadline is the request’s, whichever attempt is under way', () => {
    const { core, recorder, agenda } = gateway();
    core.receive(request('a', { deadlineUs: ms(1_000) }), 'span', ms(0));
    core.onMigrate({ requestId: 'a', attempt: 0, reason: 'worker_lost', resumeAt: 'router', holder: 'w-r0' }, ms(5));
    agenda.runUntil(ms(1_000));
    expect(failures(recorder)).toEqual(['a:timeout']);
  });

  it('when the migration limit is spent the request ends as lost where it was held', () => {
    const { core, recorder } = gateway({ migrationLimit: 1 });
    core.receive(request('a'), 'span', ms(0));
    core.onMigrate({ requestId: 'a', attempt: 0, reason: 'worker_lost', resumeAt: 'router', holder: 'w-r0' }, ms(1));
    core.onHeld({ requestId: 'a', attempt: 1, stage: 'worker', holder: 'w-r1' }, ms(2));
    core.onMigrate({ requestId: 'a', attempt: 1, reason: 'worker_lost', resumeAt: 'router', holder: 'w-r1' }, ms(3));
    expect(failures(recorder)).toEqual(['a:worker_lost']);
    expect(named(recorder, 'fail')[0]![2]).toMatchObject({ message: 'w-r1 lost the request (worker_lost) after 0 tokens, and the migration limit (1) is spent' });
  });

  it('a request the router hands back for want of any worker is tried again for the whole window, whatever the migration limit, then ends worker_unreachable', () => {
    // Every worker process died at once: they are back within the window (two heartbeat timeouts).
    const { core, recorder, agenda } = gateway({ migrationLimit: 1, resubmitWindowUs: ms(2_000) });
    core.receive(request('a'), 'span', ms(0));
    core.receive(request('b'), 'span', ms(0));
    for (let now = 10; failures(recorder).length === 0 && now < 10_000; ) {
      const attempt = named(recorder, 'handOn').filter(([r]) => (r as Request).id === 'a').length - 1;
      core.onHeld({ requestId: 'a', attempt, stage: 'router', holder: 'router-1' }, ms(now));
      core.onMigrate({ requestId: 'a', attempt, reason: 'next_unavailable', resumeAt: 'router', holder: 'router-1' }, ms(now));
      agenda.runUntil(ms(10_000));
      now = Number(named(recorder, 'handOn').slice(-1)[0]![3]) / 1000;
    }
    // Paused 100, 200, 400, 800 ms: 1,510 ms after the first hand-back; the next (1 s) would pass the window.
    expect(handOns(recorder).filter((h) => h.startsWith('a'))).toEqual(['a#0→admission@0', 'a#1→router@110', 'a#2→router@310', 'a#3→router@710', 'a#4→router@1510']);
    expect(failures(recorder)).toEqual(['a:worker_unreachable']);
    expect(named(recorder, 'fail')[0]![2]).toMatchObject({ message: 'router-1 found no worker instance to take the request for 1500 ms' });
    // Back in time: a worker holds it, and the request is served on.
    core.onHeld({ requestId: 'b', attempt: 0, stage: 'router', holder: 'router-1' }, ms(10));
    core.onMigrate({ requestId: 'b', attempt: 0, reason: 'next_unavailable', resumeAt: 'router', holder: 'router-1' }, ms(10));
    agenda.runUntil(ms(110));
    core.onHeld({ requestId: 'b', attempt: 1, stage: 'worker', holder: 'w-r0' }, ms(120));
    core.onEnd('b', 1, 10, { instance: 'w-r0' }, ms(200));
    expect(named(recorder, 'complete')).toHaveLength(1);
  });

  it('a handoff not acked in time is never sent again: the retry is a new attempt and the old one is cancelled; one nobody heard goes again as it was', () => {
    const { core, recorder, agenda } = gateway();
    core.receive(request('a'), 'span', ms(0));
    core.handoffRefused('a', 0, 'timeout', 'no ack from admission in time', ms(1_000));
    expect(named(recorder, 'cancel').map(([, c]) => c)).toEqual([{ requestId: 'a', reason: 'superseded', attempt: 0 }]);
    agenda.runUntil(ms(1_050));
    core.handoffRefused('a', 1, 'no_responders', 'no service is listening', ms(1_050));
    agenda.runUntil(ms(1_150));
    expect(handOns(recorder)).toEqual(['a#0→admission@0', 'a#1→admission@1050', 'a#1→admission@1150']);
    // Not a migration: nothing was lost, the limit is not spent and none is counted.
    expect(named(recorder, 'migrated')).toEqual([]);
    // The frozen stage's late ack or frames of attempt 0 change nothing; attempt 1 is served.
    core.onHeld({ requestId: 'a', attempt: 0, stage: 'admission', holder: 'admission-0' }, ms(1_200));
    core.onTokens('a', 0, 5, 5, ms(1_210));
    core.onHeld({ requestId: 'a', attempt: 1, stage: 'worker', holder: 'w-r0' }, ms(1_220));
    core.onEnd('a', 1, 10, { instance: 'w-r0' }, ms(1_300));
    expect(tokens(recorder)).toBe(10);
    expect(named(recorder, 'complete')).toHaveLength(1);
  });

  it('with heartbeat timeouts shorter than the ack timeout, a handoff that timed out (a frozen replica) is still tried once more', () => {
    const { core, recorder, agenda } = gateway(gatewaySettingsFrom({ requestTimeoutMs: 60_000, heartbeatTimeoutMs: 1_000, migrationLimit: 3, limits: { maxStreamDurationMs: 0 } }, 2_000));
    core.receive(request('a'), 'span', ms(0));
    core.handoffRefused('a', 0, 'timeout', 'no ack from admission in time', ms(2_000));
    agenda.runUntil(ms(2_050));
    expect(handOns(recorder)).toEqual(['a#0→admission@0', 'a#1→admission@2050']);
    expect(failures(recorder)).toEqual([]);
    // The second try times out too: the window (two ack timeouts) is spent.
    core.handoffRefused('a', 1, 'timeout', 'no ack from admission in time', ms(4_050));
    expect(failures(recorder)).toEqual(['a:admission_unavailable']);
  });

  it('a second worker instance taking the same attempt (a duplicated handoff two replicas forwarded) is told to let its copy go; the first keeps it', () => {
    const { core, recorder } = gateway();
    core.receive(request('a'), 'span', ms(0));
    core.onHeld({ requestId: 'a', attempt: 0, stage: 'worker', holder: 'w0-r0' }, ms(1));
    core.onHeld({ requestId: 'a', attempt: 0, stage: 'worker', holder: 'w1-r0' }, ms(2));
    core.onHeld({ requestId: 'a', attempt: 0, stage: 'worker', holder: 'w0-r0' }, ms(3)); // a duplicated held frame of the first
    expect(named(recorder, 'cancel').map(([, c]) => c)).toEqual([{ requestId: 'a', reason: 'superseded', attempt: 0, holder: 'w1-r0' }]);
    expect(core.openCount).toBe(1);
    core.onEnd('a', 0, 10, { instance: 'w0-r0' }, ms(10));
    expect(named(recorder, 'complete')).toHaveLength(1);
  });

  it('a held frame ends the handoff: a timeout that comes after it (a lost ack) sends nothing again', () => {
    const { core, recorder, agenda } = gateway();
    core.receive(request('a'), 'span', ms(0));
    core.onHeld({ requestId: 'a', attempt: 0, stage: 'admission', holder: 'admission-0' }, ms(1));
    core.handoffRefused('a', 0, 'timeout', 'no ack from admission in time', ms(1_000));
    agenda.runUntil(ms(5_000));
    expect(handOns(recorder)).toEqual(['a#0→admission@0']);
    expect(named(recorder, 'cancel')).toEqual([]);
  });

  it('a report about an attempt already replaced (the router’s and its own detection of one loss) re-submits once', () => {
    const { core, recorder } = gateway();
    core.receive(request('a'), 'span', ms(0));
    const lost = { requestId: 'a', attempt: 0, reason: 'worker_lost', resumeAt: 'router', holder: 'w-r0' } as const;
    core.onMigrate(lost, ms(1));
    core.onMigrate(lost, ms(2));
    expect(named(recorder, 'migrated')).toHaveLength(1);
  });

  it('with every token sent, a lost end completes the request instead of re-submitting it', () => {
    const { core, recorder } = gateway();
    core.receive(request('a', { maxTokens: 3 }), 'span', ms(0));
    core.onTokens('a', 0, 3, 3, ms(1));
    core.onMigrate({ requestId: 'a', attempt: 0, reason: 'worker_lost', resumeAt: 'router', holder: 'w-r0' }, ms(2));
    expect(named(recorder, 'complete').map(([, , c]) => c)).toEqual([{ lostWith: 'w-r0' }]);
    expect(handOns(recorder)).toEqual(['a#0→admission@0']);
  });

  it('a request handed back for want of its next stage goes again after a pause that doubles, unless it ended meanwhile', () => {
    const { core, recorder, agenda } = gateway();
    core.receive(request('a'), 'span', ms(0));
    core.receive(request('b'), 'span', ms(0));
    for (const id of ['a', 'b']) core.onMigrate({ requestId: id, attempt: 0, reason: 'next_unavailable', resumeAt: 'flow', holder: 'admission-1' }, ms(10));
    core.clientGone('b', ms(50));
    agenda.runUntil(ms(110));
    expect(handOns(recorder).slice(2)).toEqual(['a#1→flow@110']);
    core.onMigrate({ requestId: 'a', attempt: 1, reason: 'next_unavailable', resumeAt: 'flow', holder: 'admission-1' }, ms(120));
    agenda.runUntil(ms(1_000));
    expect(handOns(recorder).slice(3)).toEqual(['a#2→flow@320']);
  });

  it('re-submits what a silent holder held, and judges nobody while its own bus is down', () => {
    const { core, recorder, agenda } = gateway();
    core.start(ms(0));
    core.receive(request('a'), 'span', ms(0));
    core.receive(request('b'), 'span', ms(0));
    core.onHeld({ requestId: 'a', attempt: 0, stage: 'worker', holder: 'w-r0' }, ms(1));
    core.onHeld({ requestId: 'b', attempt: 0, stage: 'flow', holder: 'flow-1' }, ms(1));
    core.heard('flow-1', ms(2_900));
    core.suspendExpiry();
    agenda.runUntil(ms(5_000));
    expect(named(recorder, 'migrated')).toEqual([]);
    expect(core.resumeExpiry(ms(5_000))).toBe(2);
    expect(named(recorder, 'migrated').map(([r, , m]) => `${(r as Request).id}:${(m as { reason: string }).reason}`)).toEqual(['a:bus_reconnected', 'b:bus_reconnected']);
    core.onHeld({ requestId: 'a', attempt: 1, stage: 'worker', holder: 'w-r1' }, ms(5_001));
    agenda.runUntil(ms(9_000));
    expect(named(recorder, 'holderSilent')).toEqual([['w-r1', 'worker', ['a']]]);
    expect(named(recorder, 'migrated').slice(2).map(([, , m]) => m)).toEqual([{ reason: 'worker_lost', from: 'w-r1', resumeAt: 'router', attempt: 2, tokensSent: 0 }]);
  });

  it('its bus down for a heartbeat timeout, it ends every open request and every new one with stage_lost; back sooner, it re-submits them', () => {
    const { core, recorder, agenda } = gateway();
    core.receive(request('a'), 'span', ms(0));
    core.suspendExpiry(ms(100));
    core.resumeExpiry(ms(2_000));
    agenda.runUntil(ms(5_000));
    // Back within the grace: the request goes on as a new attempt, nothing ended.
    expect(failures(recorder)).toEqual([]);
    expect(handOns(recorder)).toEqual(['a#0→admission@0', 'a#1→admission@2000']);
    core.suspendExpiry(ms(6_000));
    core.suspendExpiry(ms(7_000)); // a second report of the same outage keeps its start
    agenda.runUntil(ms(8_999));
    expect(failures(recorder)).toEqual([]);
    agenda.runUntil(ms(9_000));
    expect(failures(recorder)).toEqual(['a:stage_lost']);
    expect(named(recorder, 'fail')[0]![2]).toMatchObject({ message: 'the gateway has had no connection to the bus for 3000 ms: no stage can take or continue the request' });
    core.receive(request('b'), 'span', ms(9_500));
    expect(failures(recorder)).toEqual(['a:stage_lost', 'b:stage_lost']);
    core.resumeExpiry(ms(10_000));
    core.receive(request('c'), 'span', ms(10_001));
    expect(failures(recorder)).toHaveLength(2);
    expect(core.openCount).toBe(1);
  });

  it('the client leaving ends the request as client_disconnected and cancels it downstream', () => {
    const { core, recorder } = gateway();
    core.receive(request('a'), 'span', ms(0));
    core.clientGone('a', ms(5));
    expect(failures(recorder)).toEqual(['a:client_disconnected']);
    expect(named(recorder, 'cancel').map(([, c]) => c)).toEqual([{ requestId: 'a', reason: 'client_disconnected' }]);
  });

  it('at shutdown whatever is still open ends as shutdown', () => {
    const { core, recorder } = gateway();
    for (const id of ['a', 'b']) core.receive(request(id), 'span', ms(0));
    core.onEnd('a', 0, 10, { instance: 'w' }, ms(1));
    expect(core.shutdown(ms(2))).toBe(1);
    expect(failures(recorder)).toEqual(['b:shutdown']);
  });

  it('the timers of requests that ended do not pile up under load', () => {
    const { core } = gateway();
    const timers = (core as unknown as { timers: { size: number } }).timers;
    for (let i = 0; i < 20_000; i++) {
      core.receive(request(`r${i}`, { deadlineUs: ms(60_000 + i) }), 'span', ms(i));
      core.onEnd(`r${i}`, 0, 10, { instance: 'w' }, ms(i + 1));
    }
    expect(core.openCount).toBe(0);
    expect(timers.size).toBeLessThanOrEqual(2_048);
  });

  it('whatever arrives in whatever order, each request ends exactly once and its client never gets a token twice', () => {
    const event = fc.oneof(
      // `share`: how far into its attempt's max_tokens the worker is (a worker never makes more).
      fc.record({ kind: fc.constant('tokens' as const), id: fc.integer({ min: 0, max: 2 }), attempt: fc.integer({ min: 0, max: 2 }), share: fc.double({ min: 0, max: 1, noNaN: true }) }),
      fc.record({ kind: fc.constant('end' as const), id: fc.integer({ min: 0, max: 2 }), attempt: fc.integer({ min: 0, max: 2 }), share: fc.double({ min: 0, max: 1, noNaN: true }) }),
      fc.record({ kind: fc.constant('error' as const), id: fc.integer({ min: 0, max: 2 }), attempt: fc.integer({ min: 0, max: 2 }) }),
      fc.record({ kind: fc.constant('migrate' as const), id: fc.integer({ min: 0, max: 2 }), attempt: fc.integer({ min: 0, max: 2 }), reason: fc.constantFrom('worker_lost' as const, 'next_unavailable' as const) }),
      fc.record({ kind: fc.constant('refused' as const), id: fc.integer({ min: 0, max: 2 }), attempt: fc.integer({ min: 0, max: 2 }) }),
      fc.record({ kind: fc.constant('gone' as const), id: fc.integer({ min: 0, max: 2 }) }),
      fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 1, max: 3_000 }) }),
    );
    fc.assert(
      fc.property(fc.array(event, { maxLength: 60 }), (events) => {
        const { core, recorder, agenda } = gateway({ requestTimeoutUs: ms(5_000), resubmitWindowUs: ms(500) });
        for (const id of [0, 1, 2]) core.receive(request(`r${id}`, { maxTokens: 10, deadlineUs: ms(5_000) }), `c${id}`, ms(0));
        let now = 0;
        // How many tokens the attempt's worker has made: a share of that attempt's max_tokens.
        const made = (id: number, attempt: number, share: number) => {
          const sent = named(recorder, 'handOn').map(([r]) => r as Request).filter((r) => r.id === `r${id}` && r.attempt === attempt);
          return Math.round(share * (sent[0]?.maxTokens ?? 0));
        };
        for (const e of events) {
          const at = ms(now);
          if (e.kind === 'wait') {
            now += e.ms;
            agenda.runUntil(ms(now));
          } else if (e.kind === 'tokens') core.onTokens(`r${e.id}`, e.attempt, 1, made(e.id, e.attempt, e.share), at);
          else if (e.kind === 'end') core.onEnd(`r${e.id}`, e.attempt, made(e.id, e.attempt, e.share), { instance: 'w' }, at);
          else if (e.kind === 'error') core.onError(`r${e.id}`, e.attempt, 'injected_server_error', 'x', 'worker', at);
          else if (e.kind === 'migrate') core.onMigrate({ requestId: `r${e.id}`, attempt: e.attempt, reason: e.reason, resumeAt: 'router', holder: 'w' }, at);
          else if (e.kind === 'refused') core.handoffRefused(`r${e.id}`, e.attempt, 'no_responders', 'x', at);
          else core.clientGone(`r${e.id}`, at);
        }
        agenda.runUntil(ms(now + 10_000));
        const ended = [...named(recorder, 'complete'), ...named(recorder, 'fail')].map(([r]) => (r as Request).id).sort();
        expect(ended).toEqual(['r0', 'r1', 'r2']);
        for (const id of ['r0', 'r1', 'r2']) {
          const sent = named(recorder, 'tokens').filter(([r]) => (r as Request).id === id).reduce((sum, call) => sum + Number(call[2]), 0);
          expect(sent).toBeLessThanOrEqual(10);
        }
        expect(core.openCount).toBe(0);
      }),
      { numRuns: 300 },
    );
  });
});
