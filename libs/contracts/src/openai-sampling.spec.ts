import { describe, expect, it } from 'vitest';
import { describeZodError } from './zod-errors.js';
import { ChatCompletionRequestSchema, CompletionRequestSchema } from './openai.js';

const completion = (fields: Record<string, unknown>) => CompletionRequestSchema.safeParse({ model: 'm', prompt: 'x', ...fields });
const chat = (fields: Record<string, unknown>) => ChatCompletionRequestSchema.safeParse({ model: 'm', messages: [{ role: 'user', content: 'x' }], ...fields });

/** The first problem's message, as the gateway's 400 says it (`field: what is wrong`). */
function problem(result: ReturnType<typeof completion> | ReturnType<typeof chat>): string | undefined {
  return result.success ? undefined : describeZodError(result.error)[0];
}

describe('sampling parameters: the ranges a real vLLM takes', () => {
  it.each([
    ['temperature', 'hot', /^temperature: expected a number/],
    ['temperature', 2.5, /^temperature: must be in \[0, 2\]/],
    ['temperature', -0.1, /^temperature: must be in \[0, 2\]/],
    ['top_p', 0, /^top_p: must be in \(0, 1\]/],
    ['top_p', 1.5, /^top_p: must be in \(0, 1\]/],
    ['presence_penalty', 3, /^presence_penalty: must be in \[-2, 2\]/],
    ['frequency_penalty', -3, /^frequency_penalty: must be in \[-2, 2\]/],
    ['max_tokens', 0, /^max_tokens: must be at least 1/],
    ['max_tokens', 1.5, /^max_tokens: expected an integer/],
    ['n', 2, /^n: only n=1 is supported/],
    ['top_k', -2, /^top_k: /],
    ['min_p', 2, /^min_p: must be in \[0, 1\]/],
    ['repetition_penalty', 0, /^repetition_penalty: must be greater than 0/],
  ])('both endpoints refuse %s = %j, naming the field', (field, value, message) => {
    expect(problem(completion({ [field]: value }))).toMatch(message);
    expect(problem(chat({ [field]: value }))).toMatch(message);
  });

  it.each([
    ['logprobs', 1e9, /^logprobs: must be in \[0, 20\]/],
    ['logprobs', -1, /^logprobs: must be in \[0, 20\]/],
    ['logprobs', true, /^logprobs: expected an integer/],
    ['best_of', 100, /^best_of: only best_of=1 is supported/],
  ])('completions refuse %s = %j', (field, value, message) => {
    expect(problem(completion({ [field]: value }))).toMatch(message);
  });

  it.each([
    ['logprobs', 1, /^logprobs: expected true or false/],
    ['top_logprobs', 1e9, /^top_logprobs: must be in \[0, 20\]/],
    ['max_completion_tokens', 0, /^max_completion_tokens: must be at least 1/],
  ])('chat refuses %s = %j', (field, value, message) => {
    expect(problem(chat({ [field]: value }))).toMatch(message);
  });

  it('take the edges of every range, and null as "not given"', () => {
    const edges = { temperature: 0, top_p: 1, presence_penalty: -2, frequency_penalty: 2, top_k: -1, min_p: 1, max_tokens: 1, n: 1, seed: 7 };
    expect(completion({ ...edges, logprobs: 20, best_of: 1 }).success).toBe(true);
    expect(chat({ ...edges, temperature: 2, logprobs: true, top_logprobs: 0 }).success).toBe(true);
    expect(completion({ temperature: null, top_p: null, logprobs: null, best_of: null, n: null }).success).toBe(true);
    expect(chat({ temperature: null, logprobs: null, top_logprobs: null }).success).toBe(true);
  });
});
