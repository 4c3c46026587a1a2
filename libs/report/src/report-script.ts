/**
 * The report's inline script, plain ES2020 with no imports. It reads the plot specs from
 * `<script type="application/json" id="report-data">` and draws each `<svg data-plot="name">`:
 * axes with ticks and labels, one step line or point cloud per series, a legend. After drawing, the
 * svg gets `data-drawn` = the number of series drawn (0 with a "no data" note). Any error is caught
 * and put on `<body data-error="…">`, which the browser test looks for.
 */
export const REPORT_SCRIPT = String.raw`
(function () {
  'use strict';
  const body = document.body;
  const fail = (e) => { body.setAttribute('data-error', String((e && e.message) || e)); };
  window.addEventListener('error', (ev) => fail(ev.message || 'script error'));

  const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];
  const W = 720, H = 320;
  const M = { left: 64, right: 170, top: 14, bottom: 46 };

  function niceStep(range, count) {
    const raw = range / count;
    const mag = Math.pow(10, Math.floor(Math.log10(raw)));
    const f = raw / mag;
    return (f >= 5 ? 10 : f >= 2 ? 5 : f >= 1 ? 2 : 1) * mag;
  }

  function domain(lo, hi, count) {
    if (!(hi > lo)) { const pad = lo === 0 ? 1 : Math.abs(lo) * 0.1; lo -= pad; hi += pad; }
    const step = niceStep(hi - lo, count);
    const a = Math.floor(lo / step) * step, b = Math.ceil(hi / step) * step;
    const decimals = Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
    const ticks = [];
    for (let v = a; v <= b + step / 2; v += step) ticks.push(Number(v.toFixed(decimals)));
    return { lo: a, hi: b, ticks: ticks, decimals: decimals };
  }

  function drawPlot(svg, spec) {
    const NS = svg.namespaceURI;
    const el = (name, attrs, text) => {
      const e = document.createElementNS(NS, name);
      for (const k in attrs) e.setAttribute(k, String(attrs[k]));
      if (text !== undefined) e.textContent = text;
      svg.appendChild(e);
      return e;
    };
    svg.setAttribute('viewBox', '0 0 ' + W + ' ' + H);
    const series = ((spec && spec.series) || []).filter((s) => s.points && s.points.length > 0);
    if (series.length === 0) {
      el('text', { x: W / 2, y: H / 2, 'text-anchor': 'middle', class: 'nodata' }, 'no data');
      svg.setAttribute('data-drawn', '0');
      return;
    }
    let x0 = Infinity, x1 = -Infinity, y0 = spec.yMin === undefined ? Infinity : spec.yMin, y1 = -Infinity;
    for (const s of series) for (const p of s.points) {
      x0 = Math.min(x0, p.x); x1 = Math.max(x1, p.x); y0 = Math.min(y0, p.y); y1 = Math.max(y1, p.y);
    }
    const bands = (spec.bands || []);
    for (const b of bands) { x0 = Math.min(x0, b.fromX); x1 = Math.max(x1, b.toX); }
    const xd = domain(x0, x1, 8), yd = domain(y0, y1, 6);
    const pw = W - M.left - M.right, ph = H - M.top - M.bottom;
    const sx = (x) => M.left + ((x - xd.lo) / (xd.hi - xd.lo)) * pw;
    const sy = (y) => M.top + ph - ((y - yd.lo) / (yd.hi - yd.lo)) * ph;
    const f = (v) => v.toFixed(1);

    for (const t of yd.ticks) {
      el('line', { x1: M.left, x2: M.left + pw, y1: f(sy(t)), y2: f(sy(t)), class: 'grid' });
      el('text', { x: M.left - 6, y: f(sy(t) + 4), 'text-anchor': 'end', class: 'tick' }, t.toFixed(yd.decimals));
    }
    for (const t of xd.ticks) {
      el('line', { x1: f(sx(t)), x2: f(sx(t)), y1: M.top + ph, y2: M.top + ph + 5, class: 'axis' });
      el('text', { x: f(sx(t)), y: M.top + ph + 18, 'text-anchor': 'middle', class: 'tick' }, t.toFixed(xd.decimals));
    }
    // Fault windows behind the data: a shaded band, or a line for an instantaneous fault; its label on top.
    bands.forEach((b, i) => {
      const a = sx(b.fromX), w = Math.max(sx(b.toX) - a, 1.5);
      const r = el('rect', { x: f(a), y: M.top, width: f(w), height: ph, class: 'band' });
      const title = document.createElementNS(NS, 'title');
      title.textContent = b.label;
      r.appendChild(title);
      el('text', { x: f(a + 2), y: M.top + 10 + (i % 3) * 11, class: 'band-label' }, b.label.length > 24 ? b.label.slice(0, 23) + '…' : b.label);
    });
    svg.setAttribute('data-bands', String(bands.length));
    el('line', { x1: M.left, x2: M.left + pw, y1: M.top + ph, y2: M.top + ph, class: 'axis' });
    el('line', { x1: M.left, x2: M.left, y1: M.top, y2: M.top + ph, class: 'axis' });
    el('text', { x: M.left + pw / 2, y: H - 8, 'text-anchor': 'middle', class: 'label' }, spec.xLabel);
    el('text', { x: 14, y: M.top + ph / 2, 'text-anchor': 'middle', class: 'label', transform: 'rotate(-90 14 ' + (M.top + ph / 2) + ')' }, spec.yLabel);

    let drawn = 0;
    series.forEach((s, i) => {
      const color = COLORS[i % COLORS.length];
      if (spec.kind === 'points') {
        const g = el('g', { fill: color, 'fill-opacity': 0.7 });
        for (const p of s.points) {
          const c = document.createElementNS(NS, 'circle');
          c.setAttribute('cx', f(sx(p.x))); c.setAttribute('cy', f(sy(p.y))); c.setAttribute('r', '2.5');
          g.appendChild(c);
        }
      } else {
        const pts = s.points;
        let d = 'M' + f(sx(pts[0].x)) + ' ' + f(sy(pts[0].y));
        for (let k = 1; k < pts.length; k++) d += 'H' + f(sx(pts[k].x)) + 'V' + f(sy(pts[k].y));
        el('path', { d: d, fill: 'none', stroke: color, 'stroke-width': 1.5 });
      }
      const ly = M.top + 10 + i * 18;
      el('rect', { x: W - M.right + 14, y: ly - 9, width: 12, height: 12, fill: color });
      const name = String(s.name);
      const label = el('text', { x: W - M.right + 32, y: ly + 1, class: 'legend' }, name.length > 20 ? name.slice(0, 19) + '…' : name);
      const title = document.createElementNS(NS, 'title');
      title.textContent = name + ' (' + s.points.length + ' points)';
      label.appendChild(title);
      drawn++;
    });
    svg.setAttribute('data-drawn', String(drawn));
  }

  try {
    const data = JSON.parse(document.getElementById('report-data').textContent);
    const specs = {};
    for (const p of data.plots) specs[p.name] = p;
    for (const svg of document.querySelectorAll('svg[data-plot]')) {
      try {
        drawPlot(svg, specs[svg.getAttribute('data-plot')]);
      } catch (e) {
        fail(e);
      }
    }
  } catch (e) {
    fail(e);
  }
})();
`;
