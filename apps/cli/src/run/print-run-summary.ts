import type { RunReport } from '@sluice/metrics';
import { autoscalerSummaryLine, summaryTable, type AutoscalerSection, type RunReportPaths } from '@sluice/report';
import type { Output } from '../terminal/output.js';

/**
 * What `sluice run`, `sluice simulate` and the demo of `sluice up` print once the reports are
 * written: the summary as a table (with the autoscaler's line when one ran) and where the reports
 * are, or all of it as one JSON line.
 */
export function printRunSummary(out: Output, summary: RunReport, paths: RunReportPaths, json: boolean, autoscaler?: AutoscalerSection): void {
  if (json) {
    out.line(JSON.stringify({ report: paths.jsonFile, html: paths.htmlFile, summary }));
    return;
  }
  out.line(summaryTable(summary));
  if (autoscaler) out.line(autoscalerSummaryLine(autoscaler));
  out.line('');
  out.line(`report: ${paths.jsonFile}`);
  out.line(`        ${paths.htmlFile}`);
}
