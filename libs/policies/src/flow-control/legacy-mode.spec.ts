import { describe, expect, it } from 'vitest';
import { legacyModeSheds } from './legacy-mode.js';

describe('legacyModeSheds', () => {
  it('sheds only sheddable requests, and only while saturated', () => {
    expect(legacyModeSheds(-2, 1)).toBe(true);
    expect(legacyModeSheds(-1, 1.5)).toBe(true);
    expect(legacyModeSheds(-2, 0.99)).toBe(false);
    expect(legacyModeSheds(0, 2)).toBe(false);
    expect(legacyModeSheds(4, 2)).toBe(false);
  });
});
