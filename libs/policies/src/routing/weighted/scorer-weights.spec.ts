import { describe, expect, it } from 'vitest';
import { DEFAULT_SCORER_WEIGHTS, parseScorerWeights, ScorerWeightsError, ScorerWeightsSchema } from './scorer-weights.js';

const problem = (input: string | Record<string, unknown>): string => {
  try {
    parseScorerWeights(input);
  } catch (error) {
    expect(error).toBeInstanceOf(ScorerWeightsError);
    return (error as Error).message;
  }
  throw new Error(`parsed: ${JSON.stringify(input)}`);
};

describe('parseScorerWeights', () => {
  it('reads the string form, with spaces, decimals and zeros, keyed in scorer order', () => {
    const weights = parseScorerWeights(' kv-utilization : 2 ,prefix-affinity:3, queue-depth:0.5,load-balance:0');
    expect(weights).toEqual({ 'prefix-affinity': 3, 'queue-depth': 0.5, 'kv-utilization': 2, 'load-balance': 0 });
    expect(Object.keys(weights)).toEqual(['prefix-affinity', 'queue-depth', 'kv-utilization', 'load-balance']);
    expect(Object.isFrozen(weights)).toBe(true);
  });

  it('reads the object form the same way', () => {
    expect(parseScorerWeights({ 'queue-depth': 2, 'prefix-affinity': 3, 'kv-utilization': 2 })).toEqual(DEFAULT_SCORER_WEIGHTS);
    expect(parseScorerWeights('prefix-affinity:3,queue-depth:2,kv-utilization:2')).toEqual(DEFAULT_SCORER_WEIGHTS);
  });

  it('the default is prefix-affinity:3, queue-depth:2, kv-utilization:2', () => {
    expect(DEFAULT_SCORER_WEIGHTS).toEqual({ 'prefix-affinity': 3, 'queue-depth': 2, 'kv-utilization': 2 });
  });

  it('an unknown scorer is named, with the allowed names', () => {
    expect(problem('prefix:3')).toBe('invalid scorer weights: unknown scorer "prefix"; allowed: prefix-affinity, queue-depth, kv-utilization, load-balance, precise-prefix-cache');
    expect(problem({ 'queue-depth': 1, lora: 2 })).toContain('lora: unknown scorer "lora"; allowed: prefix-affinity, queue-depth');
  });

  it('a weight must be a non-negative finite number', () => {
    expect(problem('queue-depth:-2')).toContain('the weight of "queue-depth" must be a non-negative finite number, got "-2"');
    expect(problem('queue-depth:two')).toContain('got "two"');
    expect(problem('queue-depth:')).toContain('got ""');
    expect(problem('queue-depth:Infinity')).toContain('got "Infinity"');
    expect(problem({ 'queue-depth': Number.NaN })).toContain('got NaN');
    expect(problem({ 'queue-depth': '2' })).toContain('queue-depth: the weight of "queue-depth" must be a non-negative finite number, got "2"');
    expect(problem({ 'queue-depth': null })).toContain('got null');
  });

  it('entries must be name:weight, each name once', () => {
    expect(problem('queue-depth')).toContain('"queue-depth" is not name:weight');
    expect(problem('queue-depth:1,,kv-utilization:1')).toContain('"" is not name:weight');
    expect(problem('queue-depth:1,queue-depth:2')).toContain('scorer "queue-depth" is given twice');
  });

  it('at least one weight must be positive', () => {
    expect(problem('queue-depth:0,kv-utilization:0')).toContain('at least one scorer needs a positive weight');
    expect(problem('')).toContain('at least one scorer needs a positive weight');
    expect(problem({})).toContain('at least one scorer needs a positive weight');
  });

  it('reports every problem at once', () => {
    const message = problem('foo:1,queue-depth:x');
    expect(message).toContain('unknown scorer "foo"');
    expect(message).toContain('the weight of "queue-depth"');
  });
});

describe('ScorerWeightsSchema', () => {
  it('accepts both forms and rejects other types', () => {
    expect(ScorerWeightsSchema.parse('load-balance:1')).toEqual({ 'load-balance': 1 });
    expect(ScorerWeightsSchema.parse({ 'load-balance': 1 })).toEqual({ 'load-balance': 1 });
    expect(ScorerWeightsSchema.safeParse(3).success).toBe(false);
    expect(ScorerWeightsSchema.safeParse(['queue-depth:1']).success).toBe(false);
  });

  it('puts an object-form problem at its key, a string-form one at the value', () => {
    const paths = (input: unknown) => ScorerWeightsSchema.safeParse(input).error!.issues.map((i) => i.path);
    expect(paths({ 'queue-depth': -1, foo: 1 })).toEqual([['queue-depth'], ['foo']]);
    expect(paths('queue-depth:-1,foo:1')).toEqual([[], []]);
  });
});
