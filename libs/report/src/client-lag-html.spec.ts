import { describe, expect, it } from 'vitest';
import { renderReportHtml } from './render-html.js';
import { syntheticReport } from './synthetic-report.js';

/** report.html's header lines for a live run's client lag and for a `--target` run. */
describe('report.html: client lag and target', () => {
  it('shows the client lag, and its warning, in the header', () => {
    const base = syntheticReport();
    const html = renderReportHtml({ ...base, clientLag: { requests: 40, p50Ms: 0.25, p99Ms: 31.5, maxMs: 40, warning: 'the load client sent 1% of the requests late' } });
    expect(html).toContain('<dt>Client lag</dt><dd id="client-lag"><span class="bad">the load client sent 1% of the requests late</span><br>p50 0.3 ms, p99 31.5 ms, max 40.0 ms behind schedule');
  });

  it('has no client-lag line for a run without one (the twin)', () => {
    expect(renderReportHtml(syntheticReport())).not.toContain('client-lag');
  });

  it('names the target, the model sent and every absent part', () => {
    const base = syntheticReport();
    const html = renderReportHtml({ ...base, gateway: 'http://vllm:8000', target: { url: 'http://vllm:8000', model: 'Qwen/Qwen3-14B', requestHeaders: 'openai', absent: ['stage timings and serving instance: none sent', 'engine counters: <not sluice’s>'] } });
    expect(html).toContain('<dt>Target</dt><dd>http://vllm:8000</dd>');
    expect(html).not.toContain('<dt>Gateway</dt>');
    expect(html).toContain('Qwen/Qwen3-14B (without sluice’s request headers)');
    expect(html).toContain('<li>stage timings and serving instance: none sent</li><li>engine counters: &#60;not sluice’s&#62;</li>');
  });
});
