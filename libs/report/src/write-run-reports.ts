import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderReportHtml, type StreamedPage } from './render-html.js';
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
 * `streamed` is what a streamed run kept for its page (StreamedPlots), its report holding no records.
 */
export function writeRunReports(outDir: string, report: RunReportFile, streamed?: StreamedPage): RunReportPaths {
  mkdirSync(outDir, { recursive: true });
  const jsonFile = join(outDir, 'report.json');
  const htmlFile = join(outDir, 'report.html');
  writeReportJson(jsonFile, report);
  writeFileSync(htmlFile, renderReportHtml(report, streamed));
  return { jsonFile, htmlFile };
}
