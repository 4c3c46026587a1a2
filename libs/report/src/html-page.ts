import type { PlotSpec } from './plots.js';
import { REPORT_SCRIPT } from './report-script.js';
import { REPORT_STYLE } from './report-style.js';

/*
 * The shell every sluice HTML page shares (the run report, `sluice tune`'s page): escaping, the
 * plots' figures and a self-contained document drawn by the report's own script and style.
 */

/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * JSON that is safe inside `<script type="application/json">`: `<`, `>` and `&` become \u escapes
 * (so no `</script>` or `<!--` can appear), as do U+2028/U+2029. JSON.parse reads it back unchanged.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** One `<figure>` per plot, each an empty SVG the report script draws from the page's data. */
export function plotFigures(plots: readonly PlotSpec[]): string {
  return plots
    .map((p) => `<figure><figcaption><b>${escapeHtml(p.title)}</b><br>${escapeHtml(p.note)}</figcaption><svg class="plot" data-plot="${escapeHtml(p.name)}" role="img" aria-label="${escapeHtml(p.title)}"></svg></figure>`)
    .join('\n');
}

/**
 * A self-contained HTML document: inline CSS and JS, `data` embedded as JSON (the plots the
 * script draws, and whatever else it reads), no network. `body` is HTML the caller escaped.
 */
export function htmlDocument(title: string, body: string, data: unknown): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${REPORT_STYLE}</style>
</head>
<body>
${body}
<script type="application/json" id="report-data">${jsonForScript(data)}</script>
<script>${REPORT_SCRIPT}</script>
</body>
</html>
`;
}
