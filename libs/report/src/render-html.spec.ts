import { describe, expect, it } from 'vitest';
import { buildReport } from '@sluice/metrics';
import { escapeHtml, jsonForScript, renderReportHtml } from './render-html.js';
import { syntheticReport } from './synthetic-report.js';

const PLOTS = ['ttft-cdf', 'latency-over-time', 'outcomes-over-time', 'worker-load', 'queue-per-priority'];
const EVIL = '</script><b>x';

/** The embedded JSON: the text between the data script's tags. */
function embedded(html: string): string {
  const m = /<script type="application\/json" id="report-data">([\s\S]*?)<\/script>/.exec(html);
  expect(m).not.toBeNull();
  return m![1]!;
}

describe('renderReportHtml', () => {
  const report = syntheticReport();
  const html = renderReportHtml(report);

  it('is one HTML document with inline style and script only', () => {
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(html).toContain('<style>');
    expect(html).not.toMatch(/<link\b/i);
    expect(html).not.toMatch(/<script[^>]*\bsrc\s*=/i);
    expect(html).not.toMatch(/<(img|iframe|object|embed)\b/i);
    expect(html).not.toMatch(/@import|url\(/i);
  });

  it('references no http(s) URL except the gateway shown as text', () => {
    expect(html).not.toMatch(/\b(src|href|action)\s*=\s*["']?\s*https?:/i);
    const withoutGateway = html.split(`<dd>${escapeHtml(report.gateway)}</dd>`).join('');
    expect(withoutGateway).not.toMatch(/https?:\/\//i);
  });

  it('includes every plot container', () => {
    for (const name of PLOTS) expect(html).toContain(`<svg class="plot" data-plot="${name}"`);
    expect(html.match(/<svg\b/g)).toHaveLength(PLOTS.length);
  });

  it('embeds plots and summary as JSON that round-trips', () => {
    const data = JSON.parse(embedded(html));
    expect(data.plots.map((p: { name: string }) => p.name)).toEqual(PLOTS);
    expect(data.summary).toEqual(JSON.parse(JSON.stringify(report.summary)));
  });

  it('shows header, conservation and the summary rows', () => {
    expect(html).toContain('workloads/synthetic.yaml');
    expect(html).toContain(report.startedAt);
    expect(html).toContain(`${report.summary.conservation.books.rejected.total} rejected (flow-control `);
    expect(html).toMatch(/<span class="ok">balanced<\/span>/);
    for (const name of ['overall', 'batch', 'interactive', 'tenant-a', 'tenant-b']) expect(html).toContain(`<td class="name">${name}</td>`);
    expect(html).toContain(`<b>${report.summary.jain.index.toFixed(3)}</b>`);
  });

  it('says when the books do not balance', () => {
    const r = syntheticReport();
    const unbalanced = { ...r, summary: { ...r.summary, conservation: { books: r.summary.conservation.books, check: { balanced: false, requests: 41, accounted: 40, difference: 1, problems: ['requests 41 ≠ accounted 40'] } } } };
    expect(renderReportHtml(unbalanced)).toContain('<span class="bad">NOT balanced</span>: requests 41 ≠ accounted 40');
  });

  it('a tenant or class named </script><b>x cannot break out of the JSON or the table', () => {
    const base = syntheticReport(20, EVIL);
    const records = base.records.map((r, i) => (i === 0 ? { ...r, sloClass: EVIL } : r));
    const evil = renderReportHtml({ ...base, records, summary: { ...base.summary, bySloClass: { ...base.summary.bySloClass, [EVIL]: base.summary.overall } } });
    expect(evil.match(/<\/script>/g)).toHaveLength(2); // the data script's and the code script's
    expect(evil).not.toContain('<b>x');
    const data = JSON.parse(embedded(evil));
    expect(Object.keys(data.summary.byFairnessId)).toContain(EVIL);
    expect(data.plots[0].series.map((s: { name: string }) => s.name)).toContain(EVIL);
    expect(evil).toContain(`<td class="name">${escapeHtml(EVIL)}</td>`);
  });

  it('shows goodput and SLO attainment overall, per group and per target', () => {
    expect(html).toContain('<th rowspan="2">goodput req/s</th><th rowspan="2">SLO attainment</th>');
    expect(html).toContain('<th colspan="7">TPOT (ms)</th>');
    expect(html).toMatch(/<p id="goodput">Goodput: <b>[\d.]+<\/b> req\/s; no request carried an SLO target/);
    const base = syntheticReport(40);
    const targeted = base.records.map((r) => ({ ...r, slo: { ttftMs: 120 } }));
    const withTargets = renderReportHtml({ ...base, records: targeted, summary: buildReport(targeted, { expectedRequests: 40 }) });
    const { goodput } = buildReport(targeted);
    expect(goodput.targeted).toBe(40);
    expect(withTargets).toContain(`SLO attainment: <b>${(goodput.attainment! * 100).toFixed(1)}%</b> of the 40 requests with a target (TTFT ${(goodput.ttft.attainment! * 100).toFixed(1)}% of 40)`);
  });

  it('renders an empty run', () => {
    const r = syntheticReport(0);
    const out = renderReportHtml(r);
    for (const p of JSON.parse(embedded(out)).plots) expect(p.series).toEqual([]);
  });
});

describe('jsonForScript', () => {
  it('escapes <, >, &, U+2028/9 and parses back to the same value', () => {
    const value = { s: '</script><!-- & \u2028\u2029 >' };
    const json = jsonForScript(value);
    expect(json).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(json)).toEqual(value);
  });
});
