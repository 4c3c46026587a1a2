import type { RunRecord } from '@sluice/metrics';
import { escapeHtml } from './html-page.js';

/**
 * Where a trace id becomes a link when the report's config does not say (`tracing.jaegerUrl`'s
 * default in libs/config, which a spec keeps equal to this one).
 */
export const DEFAULT_JAEGER_URL = 'http://localhost:16686';

/** Requests listed per latency: enough to see whether the slow ones share a tenant, class or instance. */
export const SLOWEST_LISTED = 10;

/** What a table is sorted by: a served request's TTFT, or a completed one's end-to-end latency. */
type Latency = 'ttft' | 'e2e';

/** One request of a table, with its latency in ms. */
export interface SlowRequest {
  readonly record: RunRecord;
  readonly latencyMs: number;
}

const latencyOf = (record: RunRecord, by: Latency): number | undefined => {
  if (by === 'ttft') return record.firstTokenMs === undefined ? undefined : record.firstTokenMs - record.arrivalMs;
  return record.outcome === 'completed' && record.endMs !== undefined ? record.endMs - record.arrivalMs : undefined;
};

/**
 * The `count` slowest requests by TTFT (those that got a first token) or by E2E (the completed:
 * the same requests the summary's E2E percentiles are of), slowest first; ties keep the run's order.
 */
export function slowestRequests(records: readonly RunRecord[], by: Latency, count = SLOWEST_LISTED): SlowRequest[] {
  const measured: SlowRequest[] = [];
  for (const record of records) {
    const latencyMs = latencyOf(record, by);
    if (latencyMs !== undefined) measured.push({ record, latencyMs });
  }
  return measured.sort((a, b) => b.latencyMs - a.latencyMs).slice(0, count);
}

/** The Jaeger UI the report links to: the run's resolved config's `tracing.jaegerUrl`, else the default. */
export function jaegerUrlOf(config: unknown): string {
  const url = (config as { tracing?: { jaegerUrl?: unknown } } | null | undefined)?.tracing?.jaegerUrl;
  return typeof url === 'string' && /^https?:\/\//.test(url) ? url.replace(/\/+$/, '') : DEFAULT_JAEGER_URL;
}

/** The link to a record's trace in Jaeger, or undefined when the gateway gave it none (tracing off, not sampled, or the twin). */
export function traceLinkOf(record: RunRecord, jaegerUrl: string): string | undefined {
  return record.traceId === undefined ? undefined : `${jaegerUrl}/trace/${encodeURIComponent(record.traceId)}`;
}

const msCell = (v: number | undefined): string => `<td>${v === undefined ? '—' : v.toFixed(1)}</td>`;

function row({ record }: SlowRequest, jaegerUrl: string): string {
  const link = traceLinkOf(record, jaegerUrl);
  const trace = link === undefined ? '—' : `<a href="${escapeHtml(link)}" target="_blank" rel="noopener noreferrer">${escapeHtml(record.traceId!.slice(0, 16))}…</a>`;
  return (
    `<tr><td class="name">${escapeHtml(record.id)}</td><td>${escapeHtml(record.gatewayRequestId ?? '—')}</td>` +
    `<td>${escapeHtml(record.fairnessId)}</td><td>${escapeHtml(record.sloClass)}</td>` +
    `${msCell(latencyOf(record, 'ttft'))}${msCell(latencyOf(record, 'e2e'))}<td>${record.outputTokens}</td>` +
    `<td>${escapeHtml(record.instance ?? '—')}</td><td>${trace}</td></tr>`
  );
}

function table(id: string, title: string, slow: readonly SlowRequest[], jaegerUrl: string): string {
  if (slow.length === 0) return `<h3>${title}</h3><p>No request measured.</p>`;
  return `<h3>${title}</h3>
<div class="table-wrap"><table class="summary" id="${id}"><thead><tr><th class="name">request</th><th>gateway id</th><th>tenant</th><th>SLO class</th><th>TTFT (ms)</th><th>E2E (ms)</th><th>output tokens</th><th>instance</th><th>trace</th></tr></thead><tbody>
${slow.map((s) => row(s, jaegerUrl)).join('\n')}
</tbody></table></div>`;
}

/**
 * The report's "Slowest requests": the slowest by TTFT and by E2E, each with a link to its trace
 * in Jaeger when the gateway returned a trace id (`x-sluice-trace-id`), so a slow request can be
 * followed through admission, the queue, routing and the instance.
 */
export function slowestRequestsHtml(records: readonly RunRecord[], config: unknown): string {
  const jaegerUrl = jaegerUrlOf(config);
  const traced = records.some((r) => r.traceId !== undefined);
  const note = traced
    ? `Each trace id opens the request’s trace in Jaeger at ${escapeHtml(jaegerUrl)} (<code>tracing.jaegerUrl</code>).`
    : 'No request carries a trace id (tracing off, nothing sampled, or a run in the twin), so there are no links to traces.';
  return `<h2 id="slowest">Slowest requests</h2>
<p>The ${SLOWEST_LISTED} slowest by time to first token and by end-to-end latency (completed requests). ${note}</p>
${table('slowest-ttft', 'By TTFT', slowestRequests(records, 'ttft'), jaegerUrl)}
${table('slowest-e2e', 'By E2E', slowestRequests(records, 'e2e'), jaegerUrl)}`;
}
