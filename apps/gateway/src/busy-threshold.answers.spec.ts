import { describe, expect, it } from 'vitest';
import { busyThresholdAnswer } from './busy-threshold.answers.js';

const entry = (decode: number | null) => ({ model: 'qwen3-14b', active_decode_blocks_threshold: decode, active_prefill_tokens_threshold: null });

describe('POST /busy_threshold: the answer from the admission replicas’ answers', () => {
  it('200 with the entry when every replica applied it alike', () => {
    expect(busyThresholdAnswer([{ ok: true, result: entry(0.5) }, { ok: true, result: entry(0.5) }])).toEqual({ status: 200, body: entry(0.5) });
  });

  it('400 naming the field when every replica refused it', () => {
    const answer = busyThresholdAnswer([{ ok: false, message: 'model: unknown model "gpt-9"; allowed: qwen3-14b' }]);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: { param: 'model', type: 'invalid_request_error' } });
  });

  it('409 saying why when only some applied it, or they hold different thresholds afterwards: never a 200 for a partial change', () => {
    const partly = busyThresholdAnswer([{ ok: true, result: entry(0.5) }, { ok: false, message: 'model: unknown model "qwen3-14b"; allowed: llama' }]);
    expect(partly.status).toBe(409);
    expect(partly.body).toMatchObject({ error: { type: 'conflict', code: 409 } });
    expect(JSON.stringify(partly.body)).toContain('1 of 2 applied the change and 1 refused it');
    const differ = busyThresholdAnswer([{ ok: true, result: entry(0.5) }, { ok: true, result: entry(0.7) }]);
    expect(differ.status).toBe(409);
    expect(JSON.stringify(differ.body)).toContain('they now hold different thresholds');
  });

  it('503 when no admission service answered', () => {
    expect(busyThresholdAnswer([]).status).toBe(503);
  });
});
