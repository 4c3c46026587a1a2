import { describe, expect, it } from 'vitest';
import { checkFact } from './check-fact.js';
import type { MetricFact } from './metric-fact.js';

const fact: MetricFact = {
  name: 'vllm:x_seconds',
  type: 'histogram',
  service: 'worker',
  labels: ['engine'],
  buckets: ['0.5', '1.0'],
  exactLe: true,
  source: 'test',
};

const page = (le1: string, labels = 'engine="0"') => `# HELP vllm:x_seconds x
# TYPE vllm:x_seconds histogram
vllm:x_seconds_bucket{le="0.5",${labels}} 0
vllm:x_seconds_bucket{le="${le1}",${labels}} 1
vllm:x_seconds_bucket{le="+Inf",${labels}} 1
vllm:x_seconds_sum{${labels}} 0.7
vllm:x_seconds_count{${labels}} 1
`;

describe('checkFact', () => {
  it('holds when names, labels and le strings match', () => {
    expect(checkFact(fact, page('1.0', 'engine="0",service="w",instance_id="w-1"'))).toEqual([]);
  });

  it('compares le as written when the peer is vLLM, as numbers otherwise', () => {
    expect(checkFact(fact, page('1'))).toEqual([expect.stringContaining('buckets le=[0.5, 1, +Inf]')]);
    expect(checkFact({ ...fact, exactLe: false }, page('1'))).toEqual([]);
  });

  it('names a missing label, an extra one, a missing value and a wrong type', () => {
    expect(checkFact({ ...fact, labels: ['engine', 'model_name'] }, page('1.0'))).toEqual(['vllm:x_seconds: lacks label(s) model_name']);
    expect(checkFact(fact, page('1.0', 'engine="0",pod="p"'))).toEqual(['vllm:x_seconds: has label(s) the peer does not: pod']);
    expect(checkFact({ ...fact, values: { engine: ['0', '1'] } }, page('1.0'))).toEqual(['vllm:x_seconds: no series with engine "1" (has 0)']);
    expect(checkFact({ ...fact, type: 'gauge' }, page('1.0'))).toEqual(['vllm:x_seconds: a histogram, the peer\'s is a gauge']);
    expect(checkFact({ ...fact, name: 'vllm:y' }, page('1.0'))).toEqual(['vllm:y: not exposed (test)']);
  });
});
