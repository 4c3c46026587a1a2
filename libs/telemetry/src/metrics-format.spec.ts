import { describe, expect, it } from 'vitest';
import { metricsFormatOf } from './metrics-format.js';

describe('metricsFormatOf', () => {
  it.each([
    // Prometheus 2.x's default scrape Accept.
    ['application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1', 'openmetrics'],
    // Prometheus 3.x's, with its escaping parameter.
    ['application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.5,application/openmetrics-text;version=0.0.1;q=0.4,text/plain;version=1.0.0;escaping=allow-utf-8;q=0.3,text/plain;version=0.0.4;q=0.2,*/*;q=0.1', 'openmetrics'],
    ['application/openmetrics-text', 'openmetrics'],
    ['text/plain;q=0.3, Application/OpenMetrics-Text; version="1.0.0"; q=0.9', 'openmetrics'],
  ] as const)('OpenMetrics when asked for by name: %s', (accept, format) => {
    expect(metricsFormatOf(accept)).toBe(format);
  });

  it.each([
    [undefined],
    ['*/*'],
    ['text/plain'],
    ['text/plain;version=0.0.4'],
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'],
    // Preferred less than the 0.0.4 text, refused, or a version not written here.
    ['text/plain;q=1, application/openmetrics-text;q=0.5'],
    ['application/openmetrics-text;q=0, */*;q=0.1'],
    ['application/openmetrics-text;version=2.0.0'],
    ['application/json'],
    [''],
  ])('the 0.0.4 text otherwise: %s', (accept) => {
    expect(metricsFormatOf(accept)).toBe('prometheus-text');
  });
});
