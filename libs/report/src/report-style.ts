/** The report's inline stylesheet: system fonts, no external resources. */
export const REPORT_STYLE = `
body { font-family: system-ui, -apple-system, 'Segoe UI', sans-serif; margin: 1.5rem auto; max-width: 1100px; padding: 0 1rem; color: #222; }
h1 { font-size: 1.4rem; margin-bottom: 0.4rem; }
h2 { font-size: 1.1rem; margin-top: 2rem; border-bottom: 1px solid #ddd; padding-bottom: 0.2rem; }
dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: 0.2rem 1rem; margin: 0.5rem 0; }
dl.meta dt { font-weight: 600; }
dl.meta dd { margin: 0; font-family: ui-monospace, monospace; word-break: break-all; }
.ok { color: #1a7f37; font-weight: 600; }
.bad { color: #c62828; font-weight: 600; }
div.table-wrap { overflow-x: auto; }
table { border-collapse: collapse; font-size: 0.82rem; margin: 0.5rem 0; }
th, td { border: 1px solid #ddd; padding: 0.2rem 0.45rem; text-align: right; }
th { background: #f4f4f4; }
td.name, th.name { text-align: left; font-family: ui-monospace, monospace; }
tr.group td { background: #fafafa; font-weight: 600; text-align: left; }
figure { margin: 1rem 0 1.5rem; }
figcaption { font-size: 0.85rem; color: #555; margin-bottom: 0.3rem; }
figcaption b { color: #222; font-size: 0.95rem; }
svg.plot { width: 100%; max-width: 720px; height: auto; border: 1px solid #eee; background: #fff; }
svg .grid { stroke: #eee; }
svg .axis { stroke: #444; }
svg .tick { font-size: 11px; fill: #444; }
svg .label { font-size: 12px; fill: #222; }
svg .legend { font-size: 12px; fill: #222; }
svg .nodata { font-size: 16px; fill: #999; }
svg .band { fill: #f5b041; fill-opacity: 0.25; stroke: #d68910; stroke-opacity: 0.6; }
svg .band-label { font-size: 10px; fill: #9c640c; }
td.pass { color: #1e8449; font-weight: 600; }
td.fail { color: #c0392b; font-weight: 600; }
td.skipped { color: #7f8c8d; }
td.details { text-align: left; font-family: ui-monospace, monospace; font-size: 0.8rem; }
`;
