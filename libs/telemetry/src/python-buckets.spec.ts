import { describe, expect, it } from 'vitest';
import { pythonFloatString } from './python-buckets.js';

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
