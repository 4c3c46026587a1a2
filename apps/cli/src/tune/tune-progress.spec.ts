import { describe, expect, it } from 'vitest';
import { parseSpace, type Trial } from '@sluice/tune';
import { TuneProgress, formatDuration, formatValue } from './tune-progress.js';

const space = parseSpace({
  workload: 'w.yaml',
  parameters: { 'admission.policies.slo-predictive.headroom': { min: 0.5, max: 2 } },
  objective: { maximize: 'throughput.requestsPerSec' },
  constraints: [{ metric: 'ttft.p99', sloClass: 'critical', max: 300 }],
});
const trial = (number: number, value: number, p99: number): Trial => ({
  number,
  params: {},
  objectives: [value],
  constraints: [p99],
  violation: Math.max(0, p99 - 300),
  feasible: p99 <= 300,
  durationMs: 900,
});

describe('TuneProgress', () => {
  it('shows trials done, the best feasible so far, the infeasible count and an ETA from the mean trial time', () => {
    const lines: string[] = [];
    const progress = new TuneProgress(space, 8, { write: (s: string) => lines.push(s) }, () => 4_000);
    progress.draw([trial(0, 20, 400), trial(1, 18.5, 250), trial(2, 25, 280), trial(3, 30, 900)]);
    expect(lines).toEqual(['[##########..........] 4/8 trials · best throughput.requestsPerSec 25 (#2) · 2 infeasible · 4 s · ETA 4 s\n']);
  });

  it('redraws in place on a terminal, cut to its width', () => {
    const lines: string[] = [];
    const progress = new TuneProgress(space, 8, { write: (s: string) => lines.push(s), isTTY: true, columns: 40 }, () => 1_000);
    progress.draw([trial(0, 20, 400)]);
    expect(lines[0]!.startsWith('\r\u001b[2K')).toBe(true);
    const text = lines[0]!.slice('\r\u001b[2K'.length);
    expect(text.length).toBe(39);
    expect(text.endsWith('…')).toBe(true);
  });

  it('formats values and durations for a line', () => {
    expect([formatValue(29.71563), formatValue(0.0004), formatValue(2_500_000), formatValue(null)]).toEqual(['29.72', '4.00e-4', '2.50e+6', '–']);
    expect([formatDuration(42_400), formatDuration(185_000)]).toEqual(['42 s', '3m 05s']);
  });
});
