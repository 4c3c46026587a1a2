import { describe, expect, it } from 'vitest';
import { engineSectionHtml } from './engine-html.js';
import { engineSection } from './engine-section.js';
import { renderReportHtml } from './render-html.js';
import { syntheticReport } from './synthetic-report.js';

const engine = engineSection(
  [
    { instance: 'w<1>-r0', preemptions: 3, kvAllocationFailures: 7, cacheHitRate: 0.25 },
    { instance: 'w<1>-r1', preemptions: 1, kvAllocationFailures: null, cacheHitRate: 0.75 },
  ],
  'kv-blocks',
);

describe('engine section of report.html', () => {
  it('has a row per instance, escaped, and the cluster row with the unweighted mean rate', () => {
    const html = engineSectionHtml(engine);
    expect(html).toContain('<tr><td class="name">w&#60;1&#62;-r0</td><td>3</td><td>7</td><td>25.0%</td></tr>');
    expect(html).toContain('<tr><td class="name">w&#60;1&#62;-r1</td><td>1</td><td>—</td><td>75.0%</td></tr>');
    expect(html).toContain('<td class="name">cluster</td><td>4</td><td>7</td><td>50.0%</td>');
    expect(html).toContain('decode blocks counted as misses');
  });

  it('is in the page when the report has the section, and absent otherwise', () => {
    expect(renderReportHtml({ ...syntheticReport(), engine })).toContain('id="engine-counters"');
    expect(renderReportHtml(syntheticReport())).not.toContain('id="engine"');
  });
});
