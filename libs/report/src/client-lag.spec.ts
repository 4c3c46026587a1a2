import { describe, expect, it } from 'vitest';
import type { RunRecord } from '@sluice/metrics';
import { CLIENT_LAG_WARN_P99_MS, clientLagSection } from './client-lag.js';

const record = (i: number, clientLagMs?: number): RunRecord => ({
  id: `r${i}`,
  fairnessId: 't',
  sloClass: 'standard',
  priority: 0,
  arrivalMs: i * 10,
  endMs: i * 10 + 5,
  outputTokens: 1,
  outcome: 'completed',
  status: 200,
  attempts: 1,
  ...(clientLagMs === undefined ? {} : { clientLagMs }),
});

describe('clientLagSection', () => {
  it('summarises the lags of the records that carry one, by the metrics library’s percentile rule', () => {
    // 0.0, 0.1, …, 9.9 ms, in shuffled order.
    const lags = Array.from({ length: 100 }, (_, i) => ((i * 37) % 100) / 10);
    const section = clientLagSection([...lags.map((lag, i) => record(i, lag)), record(100)]);
    expect(section).toEqual({ requests: 100, p50Ms: expect.closeTo(4.95, 9), p99Ms: expect.closeTo(9.801, 9), maxMs: 9.9 });
  });

  it('warns, with the numbers, when p99 is over the threshold', () => {
    const lags = [...Array.from({ length: 95 }, () => 0.2), 30, 40, 50, 60, 70];
    const section = clientLagSection(lags.map((lag, i) => record(i, lag)))!;
    expect(section.p99Ms).toBeGreaterThan(CLIENT_LAG_WARN_P99_MS);
    expect(section.maxMs).toBe(70);
    expect(section.warning).toContain(`${section.p99Ms.toFixed(1)} ms after their scheduled time (max 70.0 ms)`);
  });

  it('does not warn at the threshold', () => {
    expect(clientLagSection([record(0, CLIENT_LAG_WARN_P99_MS)])!.warning).toBeUndefined();
  });

  it('is absent, not zero, for records without a lag (the twin, an older report)', () => {
    expect(clientLagSection([record(0), record(1)])).toBeUndefined();
    expect(clientLagSection([])).toBeUndefined();
  });
});
