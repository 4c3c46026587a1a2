import { describe, expect, it } from 'vitest';
import { parseSpace, type Trial } from '@sluice/tune';
import { paretoFronts } from './tune-file.js';
import type { LoadedSpace } from './read-space.js';

const loaded = (doc: Record<string, unknown>): LoadedSpace => ({
  ...parseSpace({ workload: 'w.yaml', parameters: { 'worker.instances': { min: 1, max: 8, int: true } }, ...doc }),
  spaceFile: 'space.yaml',
  workloadFile: 'w.yaml',
  baseArgs: [],
});
const trial = (number: number, objectives: number[], constraints: number[], feasible = true): Trial => ({ number, params: {}, objectives, constraints, violation: feasible ? 0 : 1, feasible, durationMs: 1 });

describe('paretoFronts', () => {
  it('with one objective, puts it against each constraint metric: a max-bounded metric is better lower, a min-only one higher', () => {
    const space = loaded({
      objective: { maximize: 'throughput.requestsPerSec' },
      constraints: [{ metric: 'ttft.p99', sloClass: 'critical', max: 300 }, { metric: 'overall.completed', min: 100 }],
    });
    const trials = [trial(0, [10], [200, 150]), trial(1, [20], [400, 120], false), trial(2, [15], [250, 90], false), trial(3, [9], [220, 160])];
    const [latency, completed] = paretoFronts(space, trials);
    expect(latency).toMatchObject({ x: 'ttft.p99 (critical)', y: 'throughput.requestsPerSec', directions: ['minimize', 'maximize'], xBound: { max: 300 } });
    expect(latency!.points.map((p) => p.number)).toEqual([0, 2, 1]);
    expect(completed).toMatchObject({ x: 'overall.completed', directions: ['maximize', 'maximize'], xBound: { min: 100 } });
    expect(completed!.points.map((p) => p.number)).toEqual([1, 0, 3]);
  });

  it('with two objectives, one front between them over the feasible trials only', () => {
    const space = loaded({ objective: [{ maximize: 'throughput.requestsPerSec' }, { minimize: 'ttft.p99' }] });
    const trials = [trial(0, [10, 100], []), trial(1, [30, 50], [], false), trial(2, [20, 200], []), trial(3, [5, 300], [])];
    const fronts = paretoFronts(space, trials);
    expect(fronts).toHaveLength(1);
    expect(fronts[0]).toMatchObject({ x: 'throughput.requestsPerSec', y: 'ttft.p99', directions: ['maximize', 'minimize'] });
    expect(fronts[0]!.points.map((p) => p.number)).toEqual([0, 2]);
  });
});
