import { describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { PythonBucketHistogram, pythonFloatString } from './python-buckets.js';

describe('pythonFloatString', () => {
  // Expected strings: Python 3's prometheus_client.utils.floatToGoString on the same values.
  it.each([
    [1, '1.0'],
    [0.001, '0.001'],
    [0.0001, '0.0001'],
    [1e-5, '1e-05'],
    [2500, '2500.0'],
    [999999, '999999.0'],
    [1e6, '1e+06'],
    [2097152, '2.097152e+06'],
    [1.5e8, '1.5e+08'],
    [0.075, '0.075'],
    [Infinity, '+Inf'],
  ])('%s → %s', (value, expected) => {
    expect(pythonFloatString(value)).toBe(expected);
  });
});

describe('PythonBucketHistogram', () => {
  it('writes le as vLLM does and counts as prom-client does', async () => {
    const registry = new Registry();
    const h = new PythonBucketHistogram({ name: 'vllm:x_seconds', help: 'x', labelNames: ['engine'], buckets: [0.5, 1, 8], registers: [registry] });
    h.observe({ engine: '0' }, 0.7);
    const page = await registry.metrics();
    expect(page).toContain('vllm:x_seconds_bucket{le="0.5",engine="0"} 0');
    expect(page).toContain('vllm:x_seconds_bucket{le="1.0",engine="0"} 1');
    expect(page).toContain('vllm:x_seconds_bucket{le="8.0",engine="0"} 1');
    expect(page).toContain('vllm:x_seconds_bucket{le="+Inf",engine="0"} 1');
    expect(page).not.toMatch(/le="1"/);
  });
});
