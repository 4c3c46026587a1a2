import { describe, expect, it } from 'vitest';
import { chaosPlots, faultBands } from './chaos-html.js';
import { tokensPerSecond, ttftPercentilesPerSecond } from './chaos-series.js';
import { renderReportHtml } from './render-html.js';
import { SYNTHETIC_CHAOS as CHAOS } from './synthetic-chaos.js';
import { syntheticReport } from './synthetic-report.js';


describe('chaos section of the report', () => {
  it('draws each fired fault as a band in seconds, an instantaneous one as a line', () => {
    expect(faultBands(CHAOS)).toEqual([
      { fromX: 1.002, toX: 1.002, label: 'kill worker-1' },
      { fromX: 2.001, toX: 2.502, label: 'pause router' },
    ]);
    const plots = chaosPlots(CHAOS, syntheticReport().records);
    expect(plots.map((p) => p.name)).toEqual(['chaos-throughput', 'chaos-ttft', 'chaos-outcomes']);
    expect(plots.every((p) => p.bands?.length === 2 && p.series.length > 0)).toBe(true);
  });

  it('puts the verdict, the invariants and the faults in the page, escaped, and the plots in its data', () => {
    const html = renderReportHtml({ ...syntheticReport(), tool: 'sluice chaos', chaos: CHAOS });
    expect(html).toContain('<h1>sluice chaos report</h1>');
    expect(html).toContain('Chaos: crash &#60;1&#62;');
    expect(html).toContain('an invariant FAILED');
    expect(html).toMatch(/<td class="fail">✗ FAIL<\/td><td class="name">books agree<\/td><td class="details">✗ gateway completed 19 &#62; workers completed 18/);
    expect(html).toContain('<td class="skipped">– skipped</td>');
    expect(html).toContain('worker-1 ×1');
    expect(html).toContain('120 ms<br><small>a stream stalled for more than 90 ms</small>');
    expect(html).toContain('data-plot="chaos-ttft"');
    expect(html).toContain('"bands":[{"fromX":1.002');
    expect(renderReportHtml(syntheticReport())).not.toContain('id="chaos"');
  });
});

describe('chaos series', () => {
  it('counts the tokens received in each second, and ends at 0', () => {
    const records = syntheticReport(3).records;
    const [series] = tokensPerSecond(records);
    expect(series?.points.reduce((sum, p) => sum + p.y, 0)).toBe(records.reduce((sum, r) => sum + (r.tokenTimesMs?.length ?? 0), 0));
    expect(series?.points.at(-1)?.y).toBe(0);
    expect(tokensPerSecond([])).toEqual([]);
  });

  it('gives the TTFT p99 and p50 of the arrivals in each second', () => {
    const base = { fairnessId: 't', sloClass: 's', priority: 0, outputTokens: 1, outcome: 'completed' as const, status: 200, attempts: 1 };
    const records = [10, 20, 30].map((ttft, i) => ({ ...base, id: `r${i}`, arrivalMs: 1_100 + i, firstTokenMs: 1_100 + i + ttft, endMs: 2_000 }));
    expect(ttftPercentilesPerSecond(records)).toEqual([
      { name: 'TTFT p99', points: [{ x: 1, y: 29.8 }] },
      { name: 'TTFT p50', points: [{ x: 1, y: 20 }] },
    ]);
  });
});
