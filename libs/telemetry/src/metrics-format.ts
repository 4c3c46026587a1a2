/**
 * Which exposition format a scrape gets: the Prometheus text format 0.0.4 (what sluice has always
 * served, and what a browser or curl gets) or OpenMetrics 1.0 text, the only text format that
 * carries exemplars.
 */
export type MetricsFormat = 'prometheus-text' | 'openmetrics';

export const PROMETHEUS_TEXT_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
export const OPENMETRICS_CONTENT_TYPE = 'application/openmetrics-text; version=1.0.0; charset=utf-8';

export const contentTypeOf = (format: MetricsFormat): string => (format === 'openmetrics' ? OPENMETRICS_CONTENT_TYPE : PROMETHEUS_TEXT_CONTENT_TYPE);

interface MediaRange {
  readonly type: string;
  readonly version: string | undefined;
  readonly q: number;
  /** 2 for `type/subtype`, 1 for `type/*`, 0 for `*\/*`: a more specific range wins a tie. */
  readonly specificity: number;
  readonly order: number;
}

function parseAccept(accept: string): MediaRange[] {
  return accept.split(',').flatMap((entry, order) => {
    const [range = '', ...params] = entry.split(';').map((part) => part.trim());
    if (range === '') return [];
    let q = 1;
    let version: string | undefined;
    for (const param of params) {
      const eq = param.indexOf('=');
      const name = param.slice(0, eq).trim().toLowerCase();
      const value = param.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
      if (name === 'q') q = Number(value);
      else if (name === 'version') version = value;
    }
    const type = range.toLowerCase();
    const specificity = type === '*/*' ? 0 : type.endsWith('/*') ? 1 : 2;
    return Number.isFinite(q) ? [{ type, version, q, specificity, order }] : [];
  });
}

/**
 * The format for a scrape's `Accept` header, as the Prometheus client libraries negotiate
 * (prometheus/common `expfmt/encode.go` `NegotiateAccept`, commit
 * d2417e2cbb82c4c81e4d28d55f354058169a9f08): the ranges by q, then by specificity, and the first
 * one served wins. OpenMetrics only when asked for by name (`application/openmetrics-text`,
 * version 1.0.0 or none; Prometheus sends it first), unlike client_golang, whose `*\/*` also
 * means OpenMetrics: here `*\/*`, `text/*`, `text/plain` (0.0.4 or no version), a range nothing
 * matches and no header at all keep the 0.0.4 page, byte for byte what it always was.
 */
export function metricsFormatOf(accept: string | undefined): MetricsFormat {
  if (accept === undefined) return 'prometheus-text';
  const ranges = parseAccept(accept)
    .filter((range) => range.q > 0)
    .sort((a, b) => b.q - a.q || b.specificity - a.specificity || a.order - b.order);
  for (const { type, version } of ranges) {
    if (type === 'application/openmetrics-text' && (version === undefined || version === '1.0.0')) return 'openmetrics';
    if (type === 'text/plain' && (version === undefined || version === '0.0.4')) return 'prometheus-text';
    if (type === 'text/*' || type === '*/*') return 'prometheus-text';
  }
  return 'prometheus-text';
}
