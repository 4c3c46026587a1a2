/**
 * A bucket bound as Python's prometheus_client writes it (`floatToGoString`): `1.0` for 1,
 * `0.001`, `2500.0`, `1e+06` past six integer digits, `1e-05` below 1e-4. vLLM serves its
 * histograms through that client, so dashboards select buckets by these strings
 * (`le="1.0"`), and Prometheus before 3.0 keeps `le` as scraped: prom-client's `le="1"` never
 * matches them.
 */
export function pythonFloatString(value: number): string {
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  if (Number.isNaN(value)) return 'NaN';
  const repr = pythonRepr(value);
  const dot = repr.indexOf('.');
  // prometheus_client: Go switches to an exponent once the integer part has more than six digits.
  if (value > 0 && dot > 6) {
    const mantissa = `${repr[0]}.${repr.slice(1, dot)}${repr.slice(dot + 1)}`.replace(/[0.]+$/, '');
    return `${mantissa}e+0${dot - 1}`;
  }
  return repr;
}

/** Python's `repr(float)`: the shortest round-trip digits, as JavaScript, but `1.0`, `1e-05` and `1e+16`. */
function pythonRepr(value: number): string {
  if (value !== 0 && (Math.abs(value) < 1e-4 || Math.abs(value) >= 1e16)) {
    const [mantissa, exponent] = value.toExponential().split('e') as [string, string];
    const sign = exponent.startsWith('-') ? '-' : '+';
    const digits = exponent.replace(/^[+-]/, '').padStart(2, '0');
    return `${mantissa}e${sign}${digits}`;
  }
  const text = String(value);
  return Number.isInteger(value) ? `${text}.0` : text;
}
