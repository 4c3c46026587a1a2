import { describe, expect, it } from 'vitest';
import { parseInferenceBody } from './parse-request.js';

const MODELS = [{ name: 'small', maxModelLen: 100 }];

describe('parseInferenceBody', () => {
  it('leaves a chat request with no output length to the caller (vLLM\'s rule: chatDefaultMaxTokens), and keeps a length the request gives', () => {
    const messages = [{ role: 'user', content: 'Hi' }];
    expect(parseInferenceBody('chat', { model: 'small', messages }, MODELS)).toMatchObject({ ok: true, maxTokens: undefined });
    expect(parseInferenceBody('chat', { model: 'small', messages, max_tokens: 7 }, MODELS)).toMatchObject({ ok: true, maxTokens: 7 });
    expect(parseInferenceBody('chat', { model: 'small', messages, max_tokens: 7, max_completion_tokens: 5 }, MODELS)).toMatchObject({ ok: true, maxTokens: 5 });
  });

  it('gives a completions request with no max_tokens 16', () => {
    expect(parseInferenceBody('completion', { model: 'small', prompt: 'Hi' }, MODELS)).toMatchObject({ ok: true, maxTokens: 16 });
  });

  it('refuses a model not served, naming the ones that are', () => {
    expect(parseInferenceBody('completion', { model: 'big', prompt: 'Hi' }, MODELS)).toEqual({ ok: false, message: 'model: unknown model "big"; available: small', param: 'model' });
  });
});
