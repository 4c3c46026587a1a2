import { describe, expect, it } from 'vitest';
import { isMetricsPath } from './http-metrics-access.js';

describe('isMetricsPath', () => {
  it('matches every spelling the framework routes to /metrics', () => {
    for (const url of ['/metrics', '/METRICS', '/metrics/', '/Metrics?x=1', 'http://127.0.0.1:8080/metrics', 'HTTP://evil/METRICS/?a']) expect(isMetricsPath(url), url).toBe(true);
    for (const url of [undefined, '/', '/metrics2', '/metrics/x', '/v1/metrics', '//metrics', 'http://h/v1/metrics', 'not a url']) expect(isMetricsPath(url), String(url)).toBe(false);
  });
});
