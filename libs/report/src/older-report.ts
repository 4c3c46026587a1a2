import type { RunRecord, RunReport } from '@sluice/metrics';
import type { RunReportFile } from './run-report-file.js';

/**
 * The one place an older report.json's names become today's. Reports written before the fairness
 * id took one name in the code keep it as each record's `tenant` and as the summary's `byTenant`
 * and `jain.outputTokensByTenant`; read through here, such a report is what one written today
 * would be, key order included. A current report passes through as it is (no copy).
 */

/** A record as a report file holds it: today's, or an older report's with `tenant`. */
export type RecordAsRead = RunRecord | (Omit<RunRecord, 'fairnessId'> & { readonly tenant: string });

export function currentRecord(record: RecordAsRead): RunRecord {
  return 'tenant' in record ? renamed<RunRecord>(record, 'tenant', 'fairnessId') : record;
}

/** The report without its records (they are read one by one), its summary under today's names. */
export function currentHead<T extends Omit<RunReportFile, 'records'>>(head: T): T {
  const summary = head.summary as RunReport | undefined;
  if (summary === undefined || !('byTenant' in summary)) return head;
  const jain = renamed<RunReport['jain']>(summary.jain, 'outputTokensByTenant', 'outputTokensByFairnessId');
  return { ...head, summary: { ...renamed<RunReport>(summary, 'byTenant', 'byFairnessId'), jain } };
}

export function currentReport(report: RunReportFile): RunReportFile {
  return { ...currentHead(report), records: report.records.map((r) => currentRecord(r as RecordAsRead)) };
}

/** `value` with its key `from` named `to`, in the same place among its keys. */
function renamed<Current>(value: object, from: string, to: string): Current {
  return Object.fromEntries(Object.entries(value).map(([key, v]) => [key === from ? to : key, v])) as Current;
}
