import { describe, expect, it } from 'vitest';
import type { RunRecord } from '@sluice/metrics';
import { renderReportHtml } from './render-html.js';
import { DEFAULT_JAEGER_URL, jaegerUrlOf, slowestRequests, slowestRequestsHtml, traceLinkOf } from './slowest-requests.js';
import { syntheticReport } from './synthetic-report.js';

const traceIdOf = (i: number) => i.toString(16).padStart(32, 'a');

/** Request i arrives at 10·i ms, its first token ttft ms later, its end e2e ms after arrival. */
function record(i: number, ttft: number | undefined, e2e: number, extra: Partial<RunRecord> = {}): RunRecord {
  return {
    id: `r${i}`,
    fairnessId: 'tenant-a',
    sloClass: 'standard',
    arrivalMs: 10 * i,
    ...(ttft === undefined ? {} : { firstTokenMs: 10 * i + ttft }),
    endMs: 10 * i + e2e,
    outputTokens: ttft === undefined ? 0 : 4,
    outcome: ttft === undefined ? 'rejected' : 'completed',
    status: ttft === undefined ? 429 : 200,
    priority: 0,
    attempts: 1,
    traceId: traceIdOf(i),
    ...extra,
  };
}

describe('slowestRequests', () => {
  const records = [record(0, 5, 50), record(1, 40, 60), record(2, undefined, 900), record(3, 20, 300), record(4, 40, 45)];

  it('orders by TTFT, slowest first, over the requests that got a first token; ties keep the run’s order', () => {
    expect(slowestRequests(records, 'ttft').map((s) => [s.record.id, s.latencyMs])).toEqual([
      ['r1', 40],
      ['r4', 40],
      ['r3', 20],
      ['r0', 5],
    ]);
  });

  it('orders by E2E over the completed requests only (a rejection’s quick or slow answer is not a latency of service)', () => {
    expect(slowestRequests(records, 'e2e').map((s) => s.record.id)).toEqual(['r3', 'r1', 'r0', 'r4']);
  });

  it('keeps at most count', () => {
    expect(slowestRequests(records, 'e2e', 2)).toHaveLength(2);
  });
});

describe('links to traces', () => {
  it('takes the Jaeger URL from the run’s config, else the default', () => {
    expect(jaegerUrlOf({ tracing: { jaegerUrl: 'https://jaeger.example/' } })).toBe('https://jaeger.example');
    expect(jaegerUrlOf(null)).toBe(DEFAULT_JAEGER_URL);
    expect(jaegerUrlOf({ tracing: { jaegerUrl: 'javascript:alert(1)' } })).toBe(DEFAULT_JAEGER_URL);
  });

  it('links a record with a trace id to {jaegerUrl}/trace/{traceId}, and one without to nothing', () => {
    expect(traceLinkOf(record(7, 1, 2), 'http://j:16686')).toBe(`http://j:16686/trace/${traceIdOf(7)}`);
    const { traceId: _, ...untraced } = record(7, 1, 2);
    expect(traceLinkOf(untraced, 'http://j:16686')).toBeUndefined();
  });

  it('lists the slowest with a link each in report.html, and says why when no request was traced', () => {
    const base = syntheticReport();
    const traced = base.records.map((r, i) => ({ ...r, traceId: traceIdOf(i + 1) }));
    const html = renderReportHtml({ ...base, config: { tracing: { jaegerUrl: 'http://127.0.0.1:18686' } }, records: traced });
    const links = [...html.matchAll(/<a href="([^"]+)"/g)].map((m) => m[1]!);
    const expected = slowestRequests(traced, 'ttft').map((s) => `http://127.0.0.1:18686/trace/${s.record.traceId}`);
    expect(links.slice(0, expected.length)).toEqual(expected);
    expect(links.every((l) => /^http:\/\/127\.0\.0\.1:18686\/trace\/[0-9a-f]{32}$/.test(l))).toBe(true);

    const untraced = renderReportHtml(base);
    expect(untraced).toContain('<h2 id="slowest">');
    expect(untraced).not.toMatch(/<a href=/);
    expect(untraced).toContain('no links to traces');
  });

  it('escapes what it shows', () => {
    const html = slowestRequestsHtml([record(1, 5, 10, { id: '<b>x', fairnessId: '"t"' })], null);
    expect(html).not.toContain('<b>x');
    expect(html).toContain('&#60;b&#62;x');
  });
});
