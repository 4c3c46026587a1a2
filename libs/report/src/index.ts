export type { RunReportFile } from './run-report-file.js';
export { readReportJson, writeReportJson } from './report-json.js';
export { writeRunReports, type RunReportPaths } from './write-run-reports.js';
export { renderReportHtml } from './render-html.js';
export { summaryTable } from './summary-table.js';
export { compareChaos, compareGoodputByGroup, compareReports, comparisonTable, type ComparedRow } from './compare-reports.js';
export type { ChaosSection, ChaosFaultReport, ChaosProcessReport, InvariantResult, InvariantStatus } from './chaos-section.js';
export { clusterEngineCounters, engineSection, type CacheHitRateOf, type EngineClusterCounters, type EngineInstanceCounters, type EngineSection } from './engine-section.js';
export { compareEngine } from './compare-engine.js';
