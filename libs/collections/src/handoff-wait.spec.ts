import { describe, expect, it } from 'vitest';
import { senderStillWaits } from './handoff-wait.js';

describe('senderStillWaits', () => {
  it('takes a copy while an ack sent now gets back before the sender gives up, with the margin', () => {
    expect(senderStillWaits(10_000, 9_000, 250)).toBe(true);
    expect(senderStillWaits(10_000, 9_750, 250)).toBe(true);
    expect(senderStillWaits(10_000, 9_751, 250)).toBe(false);
    expect(senderStillWaits(10_000, 12_000, 0)).toBe(false);
  });

  it('takes a copy that carries no give-up time (a sender that does not write one)', () => {
    expect(senderStillWaits(undefined, 12_000, 250)).toBe(true);
  });
});
