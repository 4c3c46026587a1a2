import type { Goodput, LatencyStats, RunRecord, RunReport, Summary } from '@sluice/metrics';
import type { RunReportFile } from './run-report-file.js';

/**
 * The one place an older report.json's names become today's. Reports written before the fairness
 * id took one name in the code keep it as each record's `tenant` and as the summary's `byTenant`
 * and `jain.outputTokensByTenant`; read through here, such a report is what one written today
 * would be, key order included. Reports written before goodput get it (withGoodput). A current
 * report passes through as it is (no copy).
 */

/** A record as a report file holds it: today's, or an older report's with `tenant`. */
export type RecordAsRead = RunRecord | (Omit<RunRecord, 'fairnessId'> & { readonly tenant: string });

export function currentRecord(record: RecordAsRead): RunRecord {
  return 'tenant' in record ? renamed<RunRecord>(record, 'tenant', 'fairnessId') : record;
}

/** The report without its records (they are read one by one), its summary under today's names. */
export function currentHead<T extends Omit<RunReportFile, 'records'>>(head: T): T {
  const summary = head.summary as RunReport | undefined;
  if (summary === undefined) return head;
  const named = 'byTenant' in summary ? { ...renamed<RunReport>(summary, 'byTenant', 'byFairnessId'), jain: renamed<RunReport['jain']>(summary.jain, 'outputTokensByTenant', 'outputTokensByFairnessId') } : summary;
  return 'goodput' in named ? (named === summary ? head : { ...head, summary: named }) : { ...head, summary: withGoodput(named) };
}

/**
 * A summary written before goodput, TPOT, min and max: its runs carried no SLO targets, so every
 * completed request was good (goodput = its completed requests per second, no attainment); TPOT,
 * min and max were not measured, and read as unknown (null), not as 0.
 */
function withGoodput(summary: RunReport): RunReport {
  const stats = (s: LatencyStats | undefined): LatencyStats => ({ count: s?.count ?? 0, min: s?.min ?? null, mean: s?.mean ?? null, p50: s?.p50 ?? null, p90: s?.p90 ?? null, p95: s?.p95 ?? null, p99: s?.p99 ?? null, max: s?.max ?? null });
  const untargeted = { targeted: 0, met: 0, attainment: null };
  const upgrade = (s: Summary): Summary => {
    const goodput: Goodput = { requestsPerSec: s.throughput.requestsPerSec, good: s.completed, targeted: 0, met: 0, attainment: null, ttft: untargeted, tpot: untargeted, e2e: untargeted };
    return { ...s, ttft: stats(s.ttft), itl: stats(s.itl), tpot: stats(undefined), e2e: stats(s.e2e), goodput };
  };
  const each = (groups: Record<string, Summary>) => Object.fromEntries(Object.entries(groups).map(([k, s]) => [k, upgrade(s)]));
  const overall = upgrade(summary.overall);
  return { ...summary, overall, bySloClass: each(summary.bySloClass), byFairnessId: each(summary.byFairnessId), goodput: overall.goodput };
}

export function currentReport(report: RunReportFile): RunReportFile {
  // A streamed run's report names its records file and holds none.
  return { ...currentHead(report), records: (report.records ?? []).map((r) => currentRecord(r as RecordAsRead)) };
}

/** `value` with its key `from` named `to`, in the same place among its keys. */
function renamed<Current>(value: object, from: string, to: string): Current {
  return Object.fromEntries(Object.entries(value).map(([key, v]) => [key === from ? to : key, v])) as Current;
}
