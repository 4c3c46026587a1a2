import { describe, expect, it } from 'vitest';
import { readsKvEvents } from './reads-kv-events.js';

describe('readsKvEvents', () => {
  it('is true only for weighted with a positive precise-prefix-cache weight', () => {
    expect(readsKvEvents('weighted', { weights: 'precise-prefix-cache:2,queue-depth:1,kv-utilization:1' })).toBe(true);
    expect(readsKvEvents('weighted', { weights: { 'precise-prefix-cache': 0, 'queue-depth': 1 } })).toBe(false);
    expect(readsKvEvents('weighted', {})).toBe(false);
    expect(readsKvEvents('least-loaded', {})).toBe(false);
  });
});
