import { describe, expect, it } from 'vitest';
import { isJsonContentType } from './http-io.js';
import { isMetricsPath } from './http-metrics-access.js';

describe('isJsonContentType', () => {
  it('takes application/json with any parameters and case, and nothing else', () => {
    for (const type of ['application/json', 'application/json; charset=utf-8', 'Application/JSON', ' application/json ;x=y']) expect(isJsonContentType(type), type).toBe(true);
    for (const type of [undefined, '', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonx', 'application/json-seq', 'text/json']) expect(isJsonContentType(type), String(type)).toBe(false);
  });
});

describe('isMetricsPath', () => {
  it('matches every spelling the framework routes to /metrics', () => {
    for (const url of ['/metrics', '/METRICS', '/metrics/', '/Metrics?x=1', 'http://127.0.0.1:8080/metrics', 'HTTP://evil/METRICS/?a']) expect(isMetricsPath(url), url).toBe(true);
    for (const url of [undefined, '/', '/metrics2', '/metrics/x', '/v1/metrics', '//metrics', 'http://h/v1/metrics', 'not a url']) expect(isMetricsPath(url), String(url)).toBe(false);
  });
});
