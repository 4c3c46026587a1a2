import { describe, expect, it } from 'vitest';
import { loadConfig } from './load-config.js';
import { ConfigError } from './config.error.js';
import { DEFAULT_JAEGER_URL as REPORT_DEFAULT } from '@sluice/report';
import { DEFAULT_JAEGER_URL } from './tracing.schema.js';

describe('tracing.jaegerUrl', () => {
  it('defaults to the Jaeger UI on this host', () => {
    expect(loadConfig({ env: {}, argv: [] }).tracing.jaegerUrl).toBe('http://localhost:16686');
    // The report falls back to the same URL for a report whose config it cannot read.
    expect(REPORT_DEFAULT).toBe(DEFAULT_JAEGER_URL);
  });

  it('is set by env or flag, without a trailing slash', () => {
    expect(loadConfig({ env: { SLUICE_TRACING__JAEGER_URL: 'https://jaeger.example/' }, argv: [] }).tracing.jaegerUrl).toBe('https://jaeger.example');
    expect(loadConfig({ env: {}, argv: ['--tracing.jaegerUrl=http://127.0.0.1:18686'] }).tracing.jaegerUrl).toBe('http://127.0.0.1:18686');
  });

  it('refuses what is not an http(s) URL, naming the key', () => {
    expect(() => loadConfig({ env: {}, argv: ['--tracing.jaegerUrl=javascript:alert(1)'] })).toThrow(ConfigError);
    expect(() => loadConfig({ env: {}, argv: ['--tracing.jaegerUrl=jaeger'] })).toThrow(/tracing\.jaegerUrl/);
  });
});
