import { createHash } from 'node:crypto';
import { loadConfig, loadProfile } from '@sluice/config';
import type { RunRecord } from '@sluice/metrics';
import { FaultSchema, type Fault, type WorkloadRequest } from '@sluice/workload';
import { describe, expect, it } from 'vitest';
import { DEFAULT_HOP_LATENCIES } from '../hops.js';
import { simulate, type TwinResult } from '../twin.js';

/**
 * Faults in the twin (docs/twin.md, "Faults in the twin"), on small clusters with hand-picked
 * times: two worker processes of one instance each unless a case says otherwise, default
 * heartbeats (1 s) and timeouts (3 s, so the router's sweep runs every second and finds a silent
 * instance 3–4 s after its last heartbeat).
 */
const profile = loadProfile(loadConfig());
const H = DEFAULT_HOP_LATENCIES;

function req(index: number, o: { arrivalMs?: number; input?: number; output?: number } = {}): WorkloadRequest {
  const input = o.input ?? 256;
  return {
    index,
    clientId: `c${index}`,
    fairnessId: 't0',
    sloClass: 'standard',
    arrivalMs: o.arrivalMs ?? 0,
    inputTokens: Uint32Array.from({ length: input }, (_, i) => (index + 1) * 1_000_000 + i),
    maxTokens: o.output ?? 64,
  };
}

const faults = (...list: object[]): Fault[] => list.map((f) => FaultSchema.parse(f));

function run(requests: readonly WorkloadRequest[], argv: readonly string[], list: Fault[] | undefined, seed?: number): TwinResult {
  const config = loadConfig({ argv: ['--worker.processes=2', '--worker.instances=1', '--router.policy=round-robin', ...argv] });
  return simulate(requests, { config, profile, checkInvariants: true, ...(list ? { chaos: { faults: list } } : {}), ...(seed === undefined ? {} : { seed }) });
}

const ttft = (r: RunRecord) => r.firstTokenMs! - r.arrivalMs;
const hash = (records: readonly RunRecord[]) => createHash('sha256').update(JSON.stringify(records)).digest('hex');

function expectWholeStream(r: RunRecord, tokens: number): void {
  expect(r).toMatchObject({ outcome: 'completed', status: 200, outputTokens: tokens });
  expect(r.tokenTimesMs).toHaveLength(tokens);
  // No token twice (a repeat would arrive with or before the one it repeats), none missing (the count).
  for (let i = 1; i < tokens; i++) expect(r.tokenTimesMs![i]!).toBeGreaterThan(r.tokenTimesMs![i - 1]!);
  expect(r.firstTokenMs).toBe(r.tokenTimesMs![0]);
}

describe('twin chaos: kill of a worker process mid-stream', () => {
  // Four long requests, round-robin over two processes: r0 and r2 on worker-0, r1 and r3 on worker-1.
  const requests = [0, 1, 2, 3].map((i) => req(i, { output: 600 }));
  const kill = faults({ atMs: 1_000, action: 'kill', target: 'worker-1' });
  const baseline = run(requests, [], undefined);
  const result = run(requests, [], kill);

  it('every request completes with its whole output; those on worker-1 continue on worker-0 as attempt 1', () => {
    for (const r of result.records) expectWholeStream(r, 600);
    expect(result.records.map((r) => r.instance)).toEqual(['twin-0-r0', 'twin-0-r0', 'twin-0-r0', 'twin-0-r0']);
    expect(result.migrations.map((m) => [m.requestId, m.attempt, m.reason])).toEqual([
      ['r1', 1, 'worker_lost'],
      ['r3', 1, 'worker_lost'],
    ]);
  });

  it('keeps the tokens streamed before the kill as they were, then a gap until the router finds the silence', () => {
    const before = baseline.records[1]!;
    const after = result.records[1]!;
    const { tokensSent, atMs } = result.migrations[0]!;
    expect(tokensSent).toBeGreaterThan(0);
    // The client's record keeps its arrival, first token and every token it had before the kill.
    expect(after.arrivalMs).toBe(before.arrivalMs);
    expect(after.firstTokenMs).toBe(before.firstTokenMs);
    expect(after.tokenTimesMs!.slice(0, tokensSent)).toEqual(before.tokenTimesMs!.slice(0, tokensSent));
    expect(after.tokenTimesMs![tokensSent - 1]!).toBeLessThan(1_000 + H.returnUs / 1000 + 1);
    // Last heard at 950 ms (a snapshot; the kill comes before the 1 s heartbeat at equal times).
    // The router's sweeps run every second: the one at 4 s finds 3 050 ms of silence, past the
    // 3 s timeout; its migrate frame reaches the gateway one transit later.
    expect(atMs).toBe(4_000 + H.transitUs / 1000);
    expect(after.tokenTimesMs![tokensSent]!).toBeGreaterThan(atMs);
  });

  it('the report lists the fault, when it fired, and the migrations by reason', () => {
    expect(result.chaos).toMatchObject({
      t0Ms: 0,
      notModelled: [],
      migrations: { total: 2, byReason: { worker_lost: 2 } },
      outcomesByReason: { completed: 4 },
    });
    expect(result.chaos!.faults[0]).toMatchObject({ index: 0, action: 'kill', target: 'worker-1', modelled: true, plannedStartMs: 1_000, firedAtMs: 1_000, undoneAtMs: null });
  });

  it('with migration limit 0 they fail as worker_lost, after the tokens they had', () => {
    const failed = run(requests, ['--gateway.migrationLimit=0'], kill);
    expect(failed.migrations).toEqual([]);
    for (const i of [1, 3]) {
      const r = failed.records[i]!;
      expect(r).toMatchObject({ outcome: 'failed', reason: 'worker_lost', status: 503, stage: 'worker' });
      expect(r.outputTokens).toBeGreaterThan(0);
      expect(r.outputTokens).toBeLessThan(600);
      expect(r.tokenTimesMs).toEqual(baseline.records[i]!.tokenTimesMs!.slice(0, r.outputTokens));
    }
    for (const i of [0, 2]) expectWholeStream(failed.records[i]!, 600);
  });

  it('a request routed to the dead instance before the router notices is refused there and routed to the other', () => {
    const late = run([...requests, req(4, { arrivalMs: 1_500, output: 8 }), req(5, { arrivalMs: 1_600, output: 8 })], [], kill);
    expect(late.records.slice(4).map((r) => [r.outcome, r.instance])).toEqual([
      ['completed', 'twin-0-r0'],
      ['completed', 'twin-0-r0'],
    ]);
    expect(late.migrations.map((m) => m.requestId)).toEqual(['r1', 'r3']);
  });
});

describe('twin chaos: the only worker process killed', () => {
  it('a request routed to it before the router notices is handed back and re-submitted (pauses of 100 ms doubling to 1 s) until the router knows the worker is gone, then ends no_worker', () => {
    // Flow control off: with it, the utilization detector holds the request (stale snapshots count as saturated).
    const argv = ['--worker.processes=1', '--flowController.enabled=false'];
    const result = run([req(0, { output: 8 }), req(1, { arrivalMs: 1_500, output: 8 })], argv, faults({ atMs: 1_000, action: 'kill', target: 'worker' }));
    expect(result.records[0]!.outcome).toBe('completed');
    const migrations = result.migrations.map((m) => [m.requestId, m.attempt, m.reason]);
    expect(migrations).toEqual(migrations.map((_, i) => ['r1', i + 1, 'next_unavailable']));
    // Not the migration limit (3): two heartbeat timeouts (6 s) of tries, the limit is for lost holders.
    expect(migrations.length).toBeGreaterThan(3);
    expect(result.migrations.at(-1)!.atMs - result.migrations[0]!.atMs).toBeLessThanOrEqual(6_000);
    // Tried past the router's heartbeat timeout: by then it knows the instance is gone, and says so.
    expect(result.records[1]).toMatchObject({ outcome: 'rejected', reason: 'no_worker', stage: 'router', status: 503, outputTokens: 0 });
    // Each round trip: router → the dead instance → no responder back → the gateway, then its pause.
    const gaps = result.migrations.slice(1).map((m, i) => m.atMs - result.migrations[i]!.atMs);
    for (const [i, gap] of gaps.entries()) expect(gap).toBeGreaterThan(Math.min(100 * 2 ** i, 1_000));
  });
});

describe('twin chaos: terminate of a worker process', () => {
  const requests = [req(0, { output: 600 }), req(1, { output: 600 }), req(2, { output: 10 }), req(3, { output: 8, arrivalMs: 0.5 })];
  // r0 → worker-0, r1 → worker-1 (long), r2 → worker-0, r3 → worker-1 (short: done within the grace).
  const result = run(requests, ['--worker.shutdownGraceMs=500'], faults({ atMs: 1_000, action: 'terminate', target: 'worker-1' }));

  it('drains: what finishes within the grace period finishes there, the rest is handed back and continues elsewhere', () => {
    for (const [i, r] of result.records.entries()) expectWholeStream(r, requests[i]!.maxTokens);
    expect(result.records.map((r) => r.instance)).toEqual(['twin-0-r0', 'twin-0-r0', 'twin-0-r0', 'twin-1-r0']);
    expect(result.migrations.map((m) => [m.requestId, m.attempt, m.reason])).toEqual([['r1', 1, 'worker_draining']]);
    // Handed back when the grace ran out, one transit before the gateway re-submits it.
    expect(result.migrations[0]!.atMs).toBeCloseTo(1_500 + H.transitUs / 1000, 9);
  });

  it('routing stops at once: a request after the drain goes to the other process', () => {
    const late = run([...requests, req(4, { arrivalMs: 1_100, output: 4 }), req(5, { arrivalMs: 1_200, output: 4 })], ['--worker.shutdownGraceMs=500'], faults({ atMs: 1_000, action: 'terminate', target: 'worker-1' }));
    expect(late.records.slice(4).map((r) => r.instance)).toEqual(['twin-0-r0', 'twin-0-r0']);
  });

  it('a process with nothing running leaves at once', () => {
    const idle = run([req(0, { output: 4 }), req(1, { arrivalMs: 2_000, output: 4 })], [], faults({ atMs: 1_000, action: 'terminate', target: 'worker-1' }));
    expect(idle.chaos!.faults[0]!.detail).toMatch(/worker-1 terminated: twin-1-r0 drained \(nothing running\) and deregistered/);
    expect(idle.records[1]!.instance).toBe('twin-0-r0');
  });
});

describe('twin chaos: worker fault knobs', () => {
  // One request every 200 ms on one instance: no contention, so TTFT is the same for every request but for the knobs.
  const requests = Array.from({ length: 15 }, (_, i) => req(i, { arrivalMs: i * 200, output: 4 }));
  const argv = ['--worker.processes=1'];

  it('a slow-down window makes the TTFT of the requests in it higher, and only theirs', () => {
    const result = run(requests, argv, faults({ atMs: 1_000, action: 'worker-faults', slowdown: 3, forMs: 1_000 }));
    const inWindow = result.records.filter((r) => r.arrivalMs >= 1_000 && r.arrivalMs < 1_900);
    const outside = result.records.filter((r) => r.arrivalMs < 900 || r.arrivalMs >= 2_100);
    expect(inWindow.length).toBeGreaterThan(0);
    const quiet = ttft(outside[0]!);
    for (const r of outside) expect(ttft(r)).toBeCloseTo(quiet, 6);
    // The prefill step runs three times as long (the record's prefill time is the slowed one): TTFT grows by two thirds of it.
    for (const r of inWindow) expect(ttft(r)).toBeCloseTo(quiet + (2 / 3) * r.timings!.prefillMs!, 6);
    expect(result.chaos!.faults[0]).toMatchObject({ firedAtMs: 1_000, undoneAtMs: 2_000 });
  });

  it('hang: the requests it takes end with 504 at their deadline; the knob off again, the next ones are served', () => {
    const result = run(requests, [...argv, '--gateway.requestTimeoutMs=2000'], faults({ atMs: 1_000, action: 'worker-faults', hang: true, forMs: 500 }));
    const hung = result.records.filter((r) => r.arrivalMs >= 1_000 && r.arrivalMs < 1_500);
    expect(hung.length).toBeGreaterThan(0);
    for (const r of hung) {
      expect(r).toMatchObject({ outcome: 'failed', reason: 'timeout', status: 504, stage: 'gateway' });
      expect(r.endMs! - r.arrivalMs).toBeCloseTo(2_000 + (H.returnUs - H.transitUs) / 1000, 9);
    }
    for (const r of result.records.filter((x) => x.arrivalMs < 1_000 || x.arrivalMs >= 1_600)) expect(r.outcome).toBe('completed');
  });

  it('failureRate: the instance fails the requests it draws, with the injected reasons', () => {
    const result = run(requests, argv, faults({ atMs: 0, action: 'worker-faults', failureRate: 1, forMs: 1_000 }));
    const failed = result.records.filter((r) => r.arrivalMs < 995);
    for (const r of failed) expect(r).toMatchObject({ outcome: 'failed', stage: 'worker' });
    expect(new Set(failed.map((r) => r.reason)).size).toBeGreaterThan(0);
    for (const r of result.records.filter((x) => x.arrivalMs > 1_000)) expect(r.outcome).toBe('completed');
  });
});

describe('twin chaos: bus faults', () => {
  const requests = Array.from({ length: 10 }, (_, i) => req(i, { arrivalMs: i * 200, output: 4 }));
  const argv = ['--worker.processes=1'];
  const baseline = run(requests, argv, undefined);

  it('a delay on a hop adds exactly that much to the TTFT of every request sent on it', () => {
    const result = run(requests, argv, faults({ atMs: 0, action: 'bus-faults', subject: 'sluice.v1.router.submit', delayMs: 40 }));
    for (const [i, r] of result.records.entries()) expect(ttft(r)).toBeCloseTo(ttft(baseline.records[i]!) + 40, 9);
  });

  it('jitter is drawn from the run seed: the same seed gives the same records, another seed other delays', () => {
    const rule = faults({ atMs: 0, action: 'bus-faults', subject: 'sluice.v1.worker.*.submit', delayMs: 10, jitterMs: 30 });
    const a = run(requests, argv, rule, 7);
    expect(hash(run(requests, argv, rule, 7).records)).toBe(hash(a.records));
    expect(hash(run(requests, argv, rule, 8).records)).not.toBe(hash(a.records));
    for (const [i, r] of a.records.entries()) {
      expect(ttft(r) - ttft(baseline.records[i]!)).toBeGreaterThanOrEqual(10 - 1e-9);
      expect(ttft(r) - ttft(baseline.records[i]!)).toBeLessThanOrEqual(40 + 1e-9);
    }
  });

  it('a dropped handoff to flow control is handed back after the ack timeout and re-submitted there', () => {
    const result = run(requests.slice(0, 3), [...argv, '--nats.ackTimeoutMs=500'], faults({ atMs: 0, action: 'bus-faults', subject: 'sluice.v1.flow.submit', dropPercent: 100, forMs: 100 }));
    // r0 is admitted at t≈2.8 ms: its handoff is lost, admission hands it back at its ack timeout.
    expect(result.migrations.map((m) => [m.requestId, m.reason])).toEqual([['r0', 'next_unavailable']]);
    expectWholeStream(result.records[0]!, 4);
    expect(ttft(result.records[0]!)).toBeGreaterThan(500);
    expect(result.records[0]!.timings!.admissionMs).toBeUndefined(); // attempt 1 started at flow control, as live
  });

  it('a dropped handoff to a worker instance goes back to its gateway, which sends it on as a new attempt (the copy may have arrived)', () => {
    const result = run(requests.slice(0, 2), ['--nats.ackTimeoutMs=200'], faults({ atMs: 0, action: 'bus-faults', subject: 'sluice.v1.worker.twin-1-r0.submit', dropPercent: 100 }));
    expect(result.records.map((r) => [r.outcome, r.instance])).toEqual([
      ['completed', 'twin-0-r0'],
      ['completed', 'twin-0-r0'],
    ]);
    expect(result.migrations.map((m) => [m.requestId, m.attempt, m.reason])).toEqual([['r1', 1, 'next_unavailable']]);
  });

  it('duplicates change nothing', () => {
    const result = run(requests, argv, faults({ atMs: 0, action: 'bus-faults', subject: 'sluice.v1.>', duplicatePercent: 50 }));
    expect(hash(result.records)).toBe(hash(baseline.records));
    expect(result.chaos!.faults[0]!.detail).toMatch(/duplicates change nothing/);
  });
});

describe('twin chaos: a paused stage', () => {
  const requests = Array.from({ length: 10 }, (_, i) => req(i, { arrivalMs: i * 100, output: 4 }));
  const argv = ['--worker.processes=1'];

  it('handles what it was sent at the end of the pause, in arrival order; nothing is lost', () => {
    const baseline = run(requests, argv, undefined);
    const result = run(requests, argv, faults({ atMs: 250, action: 'pause', target: 'router', forMs: 400 }));
    /** When a request reaches the router: the gateway, three transits, admission and flow control. */
    const toRouterMs = (H.gatewayUs + 3 * H.transitUs + H.admissionUs + H.flowUs) / 1000;
    const held = result.records.filter((r) => r.arrivalMs + toRouterMs >= 250 && r.arrivalMs + toRouterMs < 650);
    expect(held.map((r) => r.id)).toEqual(['r3', 'r4', 'r5', 'r6']);
    for (const [i, r] of result.records.entries()) {
      const b = baseline.records[i]!;
      expectWholeStream(r, 4);
      // Routed before the pause: as without it.
      if (r.arrivalMs + toRouterMs < 250) expect(r.tokenTimesMs).toEqual(b.tokenTimesMs);
    }
    for (const r of held) {
      // Routed when the pause ends, all four at once (so they share their prefill step).
      const b = baseline.records[Number(r.id.slice(1))]!;
      expect(r.firstTokenMs!).toBeGreaterThanOrEqual(650 + b.firstTokenMs! - (b.arrivalMs + toRouterMs));
    }
    // In arrival order: no later request is served before an earlier one.
    const firsts = result.records.map((r) => r.firstTokenMs!);
    for (let i = 1; i < firsts.length; i++) expect(firsts[i]!).toBeGreaterThanOrEqual(firsts[i - 1]!);
    expect(result.chaos!.faults[0]!.detail).toMatch(/router paused.*router continued: \d+ messages/);
  });
});

describe('twin chaos: faults the twin cannot model', () => {
  it('are listed as not modelled, and the rest runs', () => {
    const result = run([req(0, { output: 4 })], [], faults(
      { atMs: 0, action: 'kill', target: 'router' },
      { atMs: 0, action: 'restart-nats', forMs: 100 },
      { atMs: 0, action: 'kill', target: 'worker-5' },
      { atMs: 0, action: 'bus-faults', subject: 'sluice.v1.worker.*.done', delayMs: 5 },
      { atMs: 0, action: 'worker-faults', instance: 'worker-a1b2c3-r0', slowdown: 2 },
      { atMs: 0, action: 'pause', target: 'gateway', forMs: 100 },
      { atMs: 0, action: 'stop-nats-node', node: 'busiest' },
    ));
    expect(result.records[0]!.outcome).toBe('completed');
    expect(result.chaos!.notModelled).toHaveLength(7);
    expect(result.chaos!.notModelled[0]).toMatch(/^not modelled in the twin: faults\[0\] kill of router/);
    expect(result.chaos!.notModelled[2]).toMatch(/no worker-5 \(worker.processes is 2\)/);
    expect(result.chaos!.notModelled[6]).toMatch(/^not modelled in the twin: faults\[6\] stop-nats-node: the twin has no NATS cluster/);
    for (const f of result.chaos!.faults) expect(f).toMatchObject({ modelled: false, firedAtMs: null });
  });
});

describe('twin chaos: determinism', () => {
  it('the same workload, config, seed and faults give the same records', () => {
    const requests = Array.from({ length: 40 }, (_, i) => req(i, { arrivalMs: i * 60, output: 200 }));
    const list = faults(
      { atMs: 500, action: 'kill', target: 'worker-1' },
      { atMs: 100, action: 'bus-faults', subject: 'sluice.v1.>', delayMs: 2, jitterMs: 5, dropPercent: 5, forMs: 3_000 },
      { atMs: 800, action: 'worker-faults', slowdown: 2, forMs: 700 },
    );
    const argv = ['--worker.processes=3', '--nats.ackTimeoutMs=300'];
    const a = run(requests, argv, list, 3);
    const b = run(requests, argv, list, 3);
    expect(hash(b.records)).toBe(hash(a.records));
    expect(b.migrations).toEqual(a.migrations);
    expect(a.records.every((r) => r.outcome === 'completed')).toBe(true);
    for (const r of a.records) expectWholeStream(r, 200);
  });
});

describe('twin chaos: a decode worker killed mid-transfer (disaggregated prefill/decode)', () => {
  // Two processes of one prefill and one decode instance each; every prompt prefilled remotely
  // over a link slowed to 2 s a transfer, so at 1 s every request is mid-transfer.
  const argv = ['--worker.instances=2', '--worker.roles.prefill=1', '--worker.roles.decode=1', '--router.disaggregation.decider=always', '--router.policy=least-loaded', '--worker.kvTransfer={setupUs: 2000000, perBlockUs: 0, bandwidthBytesPerSecond: 1000000000000}'];
  const requests = [0, 1, 2, 3].map((i) => req(i, { output: 32 }));
  const result = run(requests, argv, faults({ atMs: 1_000, action: 'kill', target: 'worker-1' }));

  it('its requests migrate like any other held by a lost instance and complete whole on the survivor', () => {
    for (const r of result.records) expectWholeStream(r, 32);
    expect(result.records.map((r) => r.instance)).toEqual(['twin-0-r1', 'twin-0-r1', 'twin-0-r1', 'twin-0-r1']);
    const migrated = result.migrations.map((m) => [m.attempt, m.reason]);
    expect(migrated.length).toBeGreaterThanOrEqual(1);
    for (const m of migrated) expect(m).toEqual([1, 'worker_lost']);
  });
});
