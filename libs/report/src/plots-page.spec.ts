import { describe, expect, it } from 'vitest';
import { renderPlotsPage } from './plots-page.js';

describe('renderPlotsPage', () => {
  it('embeds each plot’s spec for the report script and a figure per plot, escaping titles', () => {
    const html = renderPlotsPage({
      title: 'tune <space>',
      bodyHtml: '<p>facts</p>',
      plots: [{ name: 'convergence', title: 'Best so far', note: 'n', xLabel: 'trial', yLabel: 'y', kind: 'step', series: [{ name: 'best', points: [{ x: 0, y: 1 }] }] }],
    });
    expect(html).toContain('<title>tune &#60;space&#62;</title>');
    expect(html).toContain('<svg class="plot" data-plot="convergence"');
    const data = JSON.parse(/<script type="application\/json" id="report-data">(.*)<\/script>/.exec(html)![1]!) as { plots: { name: string }[] };
    expect(data.plots.map((p) => p.name)).toEqual(['convergence']);
    expect(html).toContain('<p>facts</p>');
  });
});
