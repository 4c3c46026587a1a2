export type { RunReportFile } from './run-report-file.js';
export { readReportJson, writeReportJson } from './report-json.js';
export { writeRunReports, type RunReportPaths } from './write-run-reports.js';
export { renderReportHtml } from './render-html.js';
export { summaryTable } from './summary-table.js';
export { compareChaos, compareReports, comparisonTable, type ComparedRow } from './compare-reports.js';
export type { ChaosSection, ChaosFaultReport, ChaosProcessReport, InvariantResult, InvariantStatus } from './chaos-section.js';
