import { describe, expect, it } from 'vitest';
import { DurationSchema, QuantitySchema, parseDurationMs, parseQuantity } from './quantities.js';

describe('quantities', () => {
  it.each([
    ['500', 500],
    ['1k', 1_000],
    ['1.5k', 1_500],
    ['2M', 2_000_000],
    ['10Gi', 10 * 2 ** 30],
    ['512Mi', 512 * 2 ** 20],
    ['1Ki', 1_024],
    ['0.5', 1],
  ])('%s is %d', (text, value) => expect(parseQuantity(text)).toBe(value));

  it.each(['', '-1', '1kb', '1 k', '10gi', 'k', '1e3'])('rejects %j and says what a quantity looks like', (text) => {
    expect(() => parseQuantity(text)).toThrow(/is not a quantity: use a whole number.*10Gi/);
  });

  it('accepts plain integers in config and names the problem for bad strings', () => {
    expect(QuantitySchema.parse(42)).toBe(42);
    expect(QuantitySchema.parse('1k')).toBe(1_000);
    expect(QuantitySchema.safeParse(1.5).success).toBe(false);
    expect(QuantitySchema.safeParse('ten').error?.issues[0]?.message).toContain('"ten" is not a quantity');
  });
});

describe('durations', () => {
  it.each([
    ['250ms', 250],
    ['60s', 60_000],
    ['1.5s', 1_500],
    ['2m', 120_000],
    ['1h', 3_600_000],
    ['1m30s', 90_000],
  ])('%s is %d ms', (text, ms) => expect(parseDurationMs(text)).toBe(ms));

  it.each(['60', 's', '1d', '-1s', '1 s'])('rejects %j and names the units', (text) => {
    expect(() => parseDurationMs(text)).toThrow(/is not a duration: use a number with a unit \(ms, s, m, h\)/);
  });

  it('takes a number as milliseconds', () => {
    expect(DurationSchema.parse(1500)).toBe(1500);
    expect(DurationSchema.parse('2s')).toBe(2000);
    expect(DurationSchema.safeParse('soon').success).toBe(false);
  });
});
