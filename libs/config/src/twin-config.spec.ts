import { describe, expect, it } from 'vitest';
import { ConfigError } from './config.error.js';
import { loadConfig } from './load-config.js';

function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return [...error.problems];
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('config: twin.hops', () => {
  it('defaults to the single-request breakdown the twin has always used (µs)', () => {
    expect(loadConfig({}).twin.hops).toEqual({ gatewayUs: 1_900, transitUs: 500, admissionUs: 400, flowUs: 400, routerUs: 400, returnUs: 1_600 });
  });

  it('takes each hop from a flag, zero and fractions included, leaving the others at their defaults', () => {
    const { hops } = loadConfig({ argv: ['--twin.hops.routerUs=0', '--twin.hops.transitUs', '612.5'] }).twin;
    expect(hops).toMatchObject({ routerUs: 0, transitUs: 612.5, gatewayUs: 1_900, returnUs: 1_600 });
  });

  it('takes them from the environment as every other key', () => {
    expect(loadConfig({ env: { SLUICE_TWIN__HOPS__GATEWAY_US: '0' } }).twin.hops.gatewayUs).toBe(0);
  });

  it('fails at start-up naming the key of a bad or misspelt hop', () => {
    expect(problemsOf(() => loadConfig({ argv: ['--twin.hops.routerUs=-1'] }))[0]).toMatch(/^twin\.hops\.routerUs: /);
    expect(problemsOf(() => loadConfig({ argv: ['--twin.hops.flowUs=fast'] }))[0]).toMatch(/^twin\.hops\.flowUs: /);
    expect(problemsOf(() => loadConfig({ argv: ['--twin.hops.routerMs=1'] }))[0]).toMatch(/^twin\.hops: .*routerMs/);
    expect(problemsOf(() => loadConfig({ argv: ['--twin.latency=1'] }))[0]).toMatch(/^twin: .*latency/);
  });
});
