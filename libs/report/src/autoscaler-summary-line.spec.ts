import { describe, expect, it } from 'vitest';
import type { AutoscalerSection } from './autoscaler-section.js';
import { autoscalerSummaryLine } from './autoscaler-summary-line.js';

const section = (overrides: Partial<AutoscalerSection> = {}): AutoscalerSection => ({
  metric: 'queueDepth',
  source: 'events',
  decisions: [],
  instances: [],
  scaleUps: [
    { decidedAtMs: 45_000, demandAtMs: 45_000, added: 4, routableAtMs: 65_000.5, reactionMs: 20_000.5, fromDemandMs: 20_000.5 },
    { decidedAtMs: 60_000, demandAtMs: 45_000, added: 1, routableAtMs: 80_000.5, reactionMs: 20_000.5, fromDemandMs: 35_000.5 },
  ],
  instanceSeconds: 527,
  instanceHours: 0.14639,
  goodPerInstanceHour: 6968.2,
  outputTokensPerInstanceHour: 1_340_000,
  ...overrides,
});

describe('the autoscaler line under the summary', () => {
  it('names the scale-ups, their slowest reactions, the instance-hours and the goodput per instance-hour', () => {
    expect(autoscalerSummaryLine(section())).toBe(
      'autoscaler      queueDepth: 2 scale-ups (decision → routable ≤ 20.0 s, demand → routable ≤ 35.0 s), 0.1464 instance-hours, 6968 good requests per instance-hour',
    );
  });

  it('says when there was no scale-up, no instance-time, or the figures come from gauges', () => {
    expect(autoscalerSummaryLine(section({ scaleUps: [], instanceHours: 0, goodPerInstanceHour: null, source: 'gauges' }))).toBe(
      'autoscaler      queueDepth: 0 scale-ups, 0.0000 instance-hours, no instance-time (from its gauges each second)',
    );
  });
});
