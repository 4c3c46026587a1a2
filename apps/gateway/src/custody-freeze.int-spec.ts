import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Bus } from '@sluice/bus';
import { RequestDoneSchema, httpHeaders, subjectPatterns } from '@sluice/contracts';
import { FAST_DETECTION_ARGS, FREE_PORT_ARGS, REPO_ROOT, startLocalCluster, type LocalCluster } from '@sluice/launcher';
import { busOptionsAs, eventually, metricSum, metricValue, postCompletion } from '@sluice/testing';

/**
 * At-most-once execution (docs/behaviour.md §6) on real processes: one replica of a stage is
 * frozen with SIGSTOP under a steady load, then woken. Whatever the frozen replica had in its
 * socket when it woke (handoffs its sender gave up on, requests whose gateway has answered) must
 * not run on a worker: each request completes on a worker at most once, and none that the gateway
 * answered with an error completes on one afterwards. Worker completions are counted from the
 * workers' done events on the bus, against the gateway's answers.
 */
const RATE_PER_S = 50;
const FREEZE_MS = Number(process.env['CUSTODY_FREEZE_MS'] ?? 2_500);

interface Answer {
  readonly id: string;
  readonly status: number;
  readonly code: string | undefined;
}

/** Sends RATE_PER_S requests a second until `stop` resolves; resolves with every answer. */
async function steadyLoad(gatewayUrl: string, stop: Promise<void>): Promise<Answer[]> {
  const answers: Promise<Answer | undefined>[] = [];
  let sending = true;
  void stop.then(() => (sending = false));
  const startedAt = performance.now();
  let i = 0;
  while (sending) {
    answers.push(
      postCompletion(gatewayUrl, { prompt: `freeze probe ${i++}`, max_tokens: 6 }).then(
        async (res) => {
          const body = (await res.json()) as { error?: { code?: string | null } };
          return { id: res.headers.get(httpHeaders.requestId) ?? '', status: res.status, code: body.error?.code ?? undefined };
        },
        () => undefined,
      ),
    );
    // Paced from the start, not from the last send: a timer that fires late on a busy machine is
    // made up by the next send, so the rate stays RATE_PER_S instead of drifting down with the load.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, startedAt + (i * 1000) / RATE_PER_S - performance.now())));
  }
  return (await Promise.all(answers)).filter((a): a is Answer => a !== undefined);
}

// One cluster with two replicas of every stage serves the three cases in turn: each freezes replica 0
// of its stage while the other replica of that stage, and both replicas of the other stages, stay up.
// A case ends with nothing in flight, seconds after its replica woke (its heartbeats every 250 ms), so
// the next starts on a whole cluster. The completions are kept across the cases: a late copy of an
// earlier case's request that ran during a later case is still counted against its first run.
describe('one replica of a stage frozen under load', () => {
  let cluster: LocalCluster;
  let observer: Bus;
  /** Completions on a worker, by request id. */
  const completions = new Map<string, number>();
  /** Every done event, by request id: which instance, why, when (what a failure prints). */
  const dones = new Map<string, string[]>();

  beforeAll(async () => {
    cluster = await startLocalCluster({
      rootDir: REPO_ROOT,
      readyTimeoutMs: 90_000,
      configArgs: [...FREE_PORT_ARGS, ...FAST_DETECTION_ARGS, '--router.replicas=2', '--flowController.replicas=2', '--admission.replicas=2', '--worker.processes=2', '--worker.instances=2', '--worker.timeScale=4'],
    });
    observer = await Bus.connect({ ...busOptionsAs(cluster, 'router'), name: 'custody-observer', ackTimeoutMs: 1_000, answerFaultControl: false });
    observer.listen(subjectPatterns.allWorkerDone, RequestDoneSchema, ({ data }) => {
      if (data.reason === 'ok') completions.set(data.requestId, (completions.get(data.requestId) ?? 0) + 1);
      dones.set(data.requestId, [...(dones.get(data.requestId) ?? []), `${data.instanceId} ${data.reason} @${Math.round(data.atUs / 1000) % 100_000}`]);
    });
  });
  afterAll(async () => {
    await observer?.drain();
    await cluster?.stop();
  });

  it.each(['router', 'flow-controller', 'admission'] as const)('one %s replica frozen under load runs no request twice and none after its error answer', async (stage) => {
    const completionsBefore = [...completions.values()].reduce((s, n) => s + n, 0);
    let stop!: () => void;
    const load = steadyLoad(cluster.gatewayUrl, new Promise<void>((resolve) => (stop = resolve)));
    // A 6-token request takes well under 0.1 s here: half a second of load has every stage busy.
    await new Promise((resolve) => setTimeout(resolve, 500));
    cluster.signal(`${stage}-0`, 'SIGSTOP');
    await new Promise((resolve) => setTimeout(resolve, FREEZE_MS));
    cluster.signal(`${stage}-0`, 'SIGCONT');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    stop();
    const answers = await load;
    await eventually(async () => (await metricValue(cluster.gatewayUrl, 'sluice_requests_in_flight')) === 0, 15_000, 'nothing in flight');
    // Whatever the woken replica still forwards reaches a worker within a moment: wait for it.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await observer.flush();

    // The copies the woken replica found too late to ack (its senders had re-submitted them): what it left.
    const woken = cluster.services.find((s) => s.process === `${stage}-0`)!;
    const left = await metricSum(woken.url, 'sluice_bus_rejected_messages_total', 'reason="abandoned"');
    const twice = [...completions].filter(([, n]) => n > 1).map(([id]) => id);
    const afterError = answers.filter((a) => a.status !== 200 && completions.has(a.id)).map((a) => `${a.id} ${a.status} ${a.code}`);
    const ok = answers.filter((a) => a.status === 200).length;
    const byCode = answers.filter((a) => a.status !== 200).reduce<Record<string, number>>((m, a) => ({ ...m, [String(a.code)]: (m[String(a.code)] ?? 0) + 1 }), {});
    console.log(`${stage} frozen ${FREEZE_MS} ms at ${RATE_PER_S} req/s: ${answers.length} requests, ${ok} answered 200, errors ${JSON.stringify(byCode)}; worker completions ${[...completions.values()].reduce((s, n) => s + n, 0) - completionsBefore}, ${twice.length} run twice, ${afterError.length} run after an error answer; ${left} late copies left by the woken replica`);
    for (const id of [...twice, ...afterError.map((a) => a.split(' ')[0]!)]) console.log(`${id}: done ${JSON.stringify(dones.get(id))}, answered ${JSON.stringify(answers.find((a) => a.id === id))}`);
    expect(answers.length).toBeGreaterThan(RATE_PER_S * 2);
    expect(twice).toEqual([]);
    expect(afterError).toEqual([]);
    // Every 200 was run by a worker once: the count is not vacuous.
    for (const a of answers) if (a.status === 200) expect(completions.get(a.id), a.id).toBe(1);
  });
});
