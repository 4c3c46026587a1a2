import { describe, expect, it } from 'vitest';
import { buildPlots } from './plots.js';
import { slowestRequests } from './slowest-requests.js';
import { StreamedPlots } from './streamed-plots.js';
import { syntheticReport } from './synthetic-report.js';

describe('StreamedPlots', () => {
  it('keeps exactly the slowest requests the kept tables list, whatever the sample', () => {
    const { records: all } = syntheticReport(300);
    const streamed = new StreamedPlots(1, 20);
    for (const r of all) streamed.add(r);
    const { slowest } = streamed.page();
    for (const by of ['ttft', 'e2e'] as const) expect(slowestRequests(slowest, by)).toEqual(slowestRequests(all, by));
    expect(slowest.length).toBeLessThanOrEqual(20);
  });

  const { records } = syntheticReport(300);

  it('draws what the kept plots draw while the run fits its sample, outcomes counted exactly', () => {
    const streamed = new StreamedPlots(1);
    for (const r of [...records].reverse()) streamed.add(r);
    const { plots } = streamed.page();
    const kept = buildPlots(records);
    expect(plots.map((p) => p.name)).toEqual(['ttft-cdf', 'latency-over-time', 'outcomes-over-time']);
    for (const name of ['ttft-cdf', 'latency-over-time', 'outcomes-over-time']) expect(plots.find((p) => p.name === name)!.series).toEqual(kept.find((p) => p.name === name)!.series);
  });

  it('keeps a bounded sample of a larger run and says so; the outcome counts stay the whole run\'s', () => {
    const streamed = new StreamedPlots(1, 50);
    for (const r of records) streamed.add(r);
    const { plots } = streamed.page();
    const cloud = plots.find((p) => p.name === 'latency-over-time')!;
    expect(cloud.note).toMatch(/^From a uniform sample of 50 of the run's 300 requests/);
    expect(cloud.series.find((s) => s.name === 'TTFT')!.points.length).toBeLessThanOrEqual(50);
    const outcomes = plots.find((p) => p.name === 'outcomes-over-time')!;
    expect(outcomes.series).toEqual(buildPlots(records).find((p) => p.name === 'outcomes-over-time')!.series);
    const ended = outcomes.series.flatMap((s) => s.points).reduce((n, p) => n + p.y, 0);
    expect(ended).toBe(300);
  });
});
