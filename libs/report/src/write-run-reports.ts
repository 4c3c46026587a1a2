import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PlotSpec } from './plots.js';
import { renderReportHtml } from './render-html.js';
import { writeReportJson } from './report-json.js';
import type { RunReportFile } from './run-report-file.js';

/** Where a run's two reports were written. */
export interface RunReportPaths {
  readonly jsonFile: string;
  readonly htmlFile: string;
}

/**
 * Writes a run's `report.json` and its self-contained `report.html` into `outDir` (created if
 * missing): what `sluice run`, the demo of `sluice up` and `sluice simulate` all leave behind.
 * `plots` are a streamed run's (StreamedPlots), drawn as its records passed.
 */
export function writeRunReports(outDir: string, report: RunReportFile, plots?: readonly PlotSpec[]): RunReportPaths {
  mkdirSync(outDir, { recursive: true });
  const jsonFile = join(outDir, 'report.json');
  const htmlFile = join(outDir, 'report.html');
  writeReportJson(jsonFile, report);
  writeFileSync(htmlFile, renderReportHtml(report, plots));
  return { jsonFile, htmlFile };
}
