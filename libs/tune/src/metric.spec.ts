import { describe, expect, it } from 'vitest';
import { metricLabel, readMetric } from './metric.js';

const summary = {
  overall: { requests: 10, completed: 8, ttft: { count: 8, p99: 120.5 } },
  bySloClass: { critical: { ttft: { count: 0, p99: null } } },
  byFairnessId: { acme: { e2e: { p50: 900 } } },
  throughput: { requestsPerSec: 4.5 },
  goodput: { overall: { requestsPerSec: 3.5 } },
};

describe('readMetric', () => {
  it('reads a path at the top of the summary, else under overall', () => {
    expect(readMetric(summary, { path: 'throughput.requestsPerSec' })).toEqual({ found: true, at: 'throughput.requestsPerSec', value: 4.5 });
    expect(readMetric(summary, { path: 'ttft.p99' })).toEqual({ found: true, at: 'overall.ttft.p99', value: 120.5 });
    expect(readMetric(summary, { path: 'goodput.overall.requestsPerSec' })).toMatchObject({ found: true, value: 3.5 });
  });

  it('reads in one SLO class or tenant; a statistic with no samples is null, not missing', () => {
    expect(readMetric(summary, { path: 'ttft.p99', sloClass: 'critical' })).toEqual({ found: true, at: 'bySloClass.critical.ttft.p99', value: null });
    expect(readMetric(summary, { path: 'e2e.p50', tenant: 'acme' })).toMatchObject({ found: true, value: 900 });
  });

  it('says what is there when a path is not', () => {
    expect(readMetric(summary, { path: 'ttft.p999' })).toEqual({ found: false, problem: 'no "ttft" in the summary; it has: overall, bySloClass, byFairnessId, throughput, goodput' });
    expect(readMetric(summary, { path: 'ttft.p99', sloClass: 'batch' })).toEqual({ found: false, problem: 'no "batch" in bySloClass; it has: critical' });
    expect(readMetric(summary, { path: 'overall.ttft' })).toEqual({ found: false, problem: 'overall.ttft is a group, not a number; one of: count, p99' });
  });

  it('labels a metric with its scope', () => {
    expect(metricLabel({ path: 'ttft.p99', sloClass: 'critical' })).toBe('ttft.p99 (critical)');
    expect(metricLabel({ path: 'e2e.p50', tenant: 'acme' })).toBe('e2e.p50 (tenant acme)');
    expect(metricLabel({ path: 'throughput.requestsPerSec' })).toBe('throughput.requestsPerSec');
  });
});
