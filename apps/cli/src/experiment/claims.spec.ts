import { describe, expect, it } from 'vitest';
import { figureAt, judge } from './claims.js';
import { ExperimentSchema, configFlags } from './experiment-file.js';

const raw = (claims: unknown[]) => ({
    name: 'x',
    hypothesis: 'h',
    source: 's',
    workload: 'w.yaml',
    control: 'a',
    arms: [
      { name: 'a', about: 'control' },
      { name: 'b', about: 'treatment' },
    ],
    claims,
  });
const experiment = (claims: unknown[]) => ExperimentSchema.parse(raw(claims));

const summaries = new Map<string, unknown>([
  ['a', { overall: { completed: 100 }, bySloClass: { critical: { ttft: { p99: 200 } } } }],
  ['b', { overall: { completed: 140 }, bySloClass: { critical: { ttft: { p99: 210 } } } }],
]);

describe('judging claims', () => {
  it('compares an arm with another (times a ratio) or with a value, and confirms only when every claim holds', () => {
    const e = experiment([
      { says: '30% more', metric: 'overall.completed', arm: 'b', vs: 'a', op: '>=', ratio: 1.3 },
      { says: 'same p99', metric: 'bySloClass.critical.ttft.p99', arm: 'b', vs: 'a', op: 'within', tolerance: 0.1 },
      { says: 'under 150 ms', metric: 'bySloClass.critical.ttft.p99', arm: 'b', op: '<', value: 150 },
    ]);
    const judged = judge(e, summaries);
    expect(judged.claims.map(({ left, right, holds }) => ({ left, right, holds }))).toEqual([
      { left: 140, right: 130, holds: true },
      { left: 210, right: 200, holds: true },
      { left: 210, right: 150, holds: false },
    ]);
    expect(judged.verdict).toBe('partly confirmed');
    expect(judge(experiment([{ says: 'x', metric: 'overall.completed', arm: 'b', vs: 'a', op: '>' }]), summaries).verdict).toBe('confirmed');
    expect(judge(experiment([{ says: 'x', metric: 'overall.completed', arm: 'b', vs: 'a', op: '<' }]), summaries).verdict).toBe('refuted');
  });

  it('never lets a missing figure hold: an experiment that measured nothing is not confirmed', () => {
    const judged = judge(experiment([{ says: 'x', metric: 'bySloClass.sheddable.ttft.p99', arm: 'b', op: '<', value: 1e9 }]), summaries);
    expect(judged.claims[0]).toMatchObject({ left: null, holds: false });
    expect(judged.verdict).toBe('refuted');
    expect(figureAt({ a: { b: null } }, 'a.b')).toBeNull();
    expect(figureAt({ a: 'text' }, 'a')).toBeNull();
  });

  it('refuses claims that name no arm, or mix a value with a ratio, naming the key', () => {
    const bad = ExperimentSchema.safeParse(raw([{ says: 'x', metric: 'm', arm: 'c', op: '>', value: 1, ratio: 2 }]));
    expect(bad.success).toBe(false);
    const paths = bad.error!.issues.map((i) => i.path.join('.'));
    expect(paths).toEqual(expect.arrayContaining(['claims.0.arm', 'claims.0.ratio']));
  });
});

describe('configFlags', () => {
  it('turns a sluice.yaml fragment into one --key.path=value flag per leaf, a list as one value', () => {
    expect(configFlags({ worker: { instances: 4 }, admission: { policy: 'slo-gated', policies: { 'slo-gated': { thresholds: [1, 2] } } } })).toEqual([
      '--worker.instances=4',
      '--admission.policy=slo-gated',
      '--admission.policies.slo-gated.thresholds=[1,2]',
    ]);
  });
});
