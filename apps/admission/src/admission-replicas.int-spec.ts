import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FREE_PORT_ARGS, REPO_ROOT, startLocalCluster, type LocalCluster } from '@sluice/launcher';
import { eventually, metricValue, reportedCompletion, type ReportedAnswer } from '@sluice/testing';

/**
 * Admission replicated behind its queue group with a token bucket: each replica counts the others
 * from their presence and holds 1/N of the capacity, so N replicas together admit what one bucket
 * would (docs/scaling.md). A one-off allowance (refill 0) makes the admitted total exact: 6 000
 * tokens at 200 a request is 30 requests, whatever the replica count.
 */
const CAPACITY = 6_000;
const COST = 200;
const BURST = 60;
const EXPECTED = CAPACITY / COST;

describe.each([1, 2])('a token bucket over %i admission replica(s)', (replicas) => {
  let cluster: LocalCluster;
  beforeAll(async () => {
    cluster = await startLocalCluster({
      rootDir: REPO_ROOT,
      configArgs: [
        ...FREE_PORT_ARGS,
        `--admission.replicas=${replicas}`,
        '--admission.heartbeatIntervalMs=200',
        '--admission.policy=token-bucket',
        `--admission.policies.token-bucket.capacity=${CAPACITY}`,
        '--admission.policies.token-bucket.refillRate=0',
        '--worker.timeScale=100',
      ],
    });
    // Each replica has heard every one (its own presence included) before the burst.
    const admissions = cluster.services.filter((s) => s.name === 'admission');
    expect(admissions).toHaveLength(replicas);
    for (const admission of admissions) {
      await eventually(async () => (await metricValue(admission.url, 'sluice_admission_replicas')) === replicas, 10_000, `${admission.process} counts ${replicas}`);
    }
  });
  afterAll(() => cluster?.stop());

  it(`admits the configured total (${EXPECTED} requests of ${COST} tokens) on a burst of ${BURST}, within 5%`, async () => {
    const prompt = Array.from({ length: COST }, (_, i) => i + 1);
    const answers: ReportedAnswer[] = await Promise.all(Array.from({ length: BURST }, () => reportedCompletion(cluster.gatewayUrl, { prompt, max_tokens: 1 })));
    const admitted = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 429);
    expect(admitted.length + refused.length).toBe(BURST);
    expect(refused.every((a) => a.errorCode === 'insufficient_tokens')).toBe(true);
    expect(Math.abs(admitted.length - EXPECTED)).toBeLessThanOrEqual(0.05 * EXPECTED);
    // Every replica took a share of the burst and admitted from its own share of the bucket.
    const byReplica = new Map<string, number>();
    for (const a of admitted) byReplica.set(a.sluice!.holders.admission!, (byReplica.get(a.sluice!.holders.admission!) ?? 0) + 1);
    expect(byReplica.size).toBe(replicas);
    for (const count of byReplica.values()) expect(count).toBeLessThanOrEqual(Math.ceil(EXPECTED / replicas));
  });
});
