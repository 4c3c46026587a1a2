import { describe, expect, it } from 'vitest';
import { parseInferenceBody } from './parse-request.js';

const MODELS = [{ name: 'small', maxModelLen: 100 }];

describe('parseInferenceBody', () => {
  it('runs a chat request with no output length to the end of the context, as vLLM does', () => {
    const parsed = parseInferenceBody('chat', { model: 'small', messages: [{ role: 'user', content: 'Hi' }] }, MODELS);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.maxTokens).toBe(100 - parsed.tokenIds.length);
  });

  it('caps that length at the output cap, and keeps a length the request gives', () => {
    const messages = [{ role: 'user', content: 'Hi' }];
    expect(parseInferenceBody('chat', { model: 'small', messages }, MODELS, 10)).toMatchObject({ ok: true, maxTokens: 10 });
    expect(parseInferenceBody('chat', { model: 'small', messages, max_tokens: 7 }, MODELS, 10)).toMatchObject({ ok: true, maxTokens: 7 });
    expect(parseInferenceBody('chat', { model: 'small', messages, max_tokens: 7, max_completion_tokens: 5 }, MODELS)).toMatchObject({ ok: true, maxTokens: 5 });
  });

  it('gives a completions request with no max_tokens 16', () => {
    expect(parseInferenceBody('completion', { model: 'small', prompt: 'Hi' }, MODELS)).toMatchObject({ ok: true, maxTokens: 16 });
  });

  it('refuses a model not served, naming the ones that are', () => {
    expect(parseInferenceBody('completion', { model: 'big', prompt: 'Hi' }, MODELS)).toEqual({ ok: false, message: 'model: unknown model "big"; available: small', param: 'model' });
  });
});
