import type { PlotSpec } from './plots.js';
import { escapeHtml, htmlDocument, plotFigures } from './html-page.js';

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
  const body = `<h1>${escapeHtml(page.title)}</h1>
${page.bodyHtml}
<h2>Plots</h2>
${plotFigures(page.plots)}`;
  return htmlDocument(page.title, body, { plots: page.plots });
}
