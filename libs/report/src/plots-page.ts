import type { PlotSpec } from './plots.js';
import { escapeHtml, jsonForScript } from './render-html.js';
import { REPORT_SCRIPT } from './report-script.js';
import { REPORT_STYLE } from './report-style.js';

/** A page of plots beside a run report: its title, HTML sections (already escaped) and plots. */
export interface PlotsPage {
  readonly title: string;
  /** HTML put before the plots (a `<dl>` of facts, tables); the caller escapes what it puts in. */
  readonly bodyHtml: string;
  readonly plots: readonly PlotSpec[];
}

/**
 * A self-contained HTML page drawn by the run report's own script and style: for documents that
 * are not one run (`sluice tune`'s convergence and Pareto plots) but read like the run report.
 */
export function renderPlotsPage(page: PlotsPage): string {
  const figures = page.plots
    .map((p) => `<figure><figcaption><b>${escapeHtml(p.title)}</b><br>${escapeHtml(p.note)}</figcaption><svg class="plot" data-plot="${escapeHtml(p.name)}" role="img" aria-label="${escapeHtml(p.title)}"></svg></figure>`)
    .join('\n');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.title)}</title>
<style>${REPORT_STYLE}</style>
</head>
<body>
<h1>${escapeHtml(page.title)}</h1>
${page.bodyHtml}
<h2>Plots</h2>
${figures}
<script type="application/json" id="report-data">${jsonForScript({ plots: page.plots })}</script>
<script>${REPORT_SCRIPT}</script>
</body>
</html>
`;
}
