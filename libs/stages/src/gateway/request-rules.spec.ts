import { describe, expect, it } from 'vitest';
import { exceedsContext, priorityFor } from './request-rules.js';

describe('priorityFor', () => {
  const objectives = new Map([
    ['premium', 10],
    ['bulk', -5],
  ]);

  it('takes the named objective’s priority; an unknown objective gets 0', () => {
    expect(priorityFor('premium', 'standard', objectives)).toBe(10);
    expect(priorityFor('bulk', 'critical', objectives)).toBe(-5);
    expect(priorityFor('gold', 'critical', objectives)).toBe(0);
  });

  it('without an objective, takes the SLO class’s priority', () => {
    expect(priorityFor(undefined, 'critical', objectives)).toBe(4);
    expect(priorityFor(undefined, 'standard', objectives)).toBe(3);
    expect(priorityFor(undefined, 'sheddable', objectives)).toBe(-2);
  });
});

describe('exceedsContext', () => {
  const model = { name: 'qwen3-14b', maxModelLen: 1_000 };

  it('lets a request through that fits the context exactly', () => {
    expect(exceedsContext(900, 100, model)).toBeUndefined();
  });

  it('says by how much a request does not fit, naming the model and its limit', () => {
    expect(exceedsContext(900, 101, model)).toBe('prompt (900 tokens) + max_tokens (101) exceeds the context of qwen3-14b (1000 tokens)');
  });
});
