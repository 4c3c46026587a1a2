import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SLO_TTFT_MS_MAX, httpHeaders } from '@sluice/contracts';
import { chatDefaultMaxTokens, costRefusal, exceedsContext, priorityFor, readRequestHeaders } from './request-rules.js';

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

describe('chatDefaultMaxTokens', () => {
  it('is the rest of the context, as vLLM runs a chat request with no max_tokens', () => {
    expect(chatDefaultMaxTokens(1_000, 40_960, 0)).toBe(39_960);
  });

  it('is capped by a server-wide cap when set', () => {
    expect(chatDefaultMaxTokens(1_000, 40_960, 8_192)).toBe(8_192);
    expect(chatDefaultMaxTokens(40_000, 40_960, 8_192)).toBe(960);
  });

  it('is at least 1, so a prompt that fills the context is refused for its length', () => {
    const maxTokens = chatDefaultMaxTokens(40_960, 40_960, 0);
    expect(maxTokens).toBe(1);
    expect(exceedsContext(40_960, maxTokens, { name: 'm', maxModelLen: 40_960 })).toMatch(/exceeds the context/);
  });
});

describe('costRefusal', () => {
  const model = { name: 'qwen3-14b', maxModelLen: 1_000 };
  const limits = { maxPromptTokens: 500, maxTokens: 200 };

  it('lets a request within every limit through, at each limit exactly', () => {
    expect(costRefusal(500, 200, model, limits)).toBeUndefined();
  });

  it('names the limit and its value: the prompt cap, then the max_tokens cap', () => {
    expect(costRefusal(501, 10, model, limits)).toEqual({
      reason: 'prompt_too_long',
      message: 'the prompt has 501 tokens; this gateway takes at most 500 (gateway.limits.maxPromptTokens)',
      param: 'prompt',
    });
    expect(costRefusal(10, 201, model, limits)).toEqual({
      reason: 'max_tokens_too_large',
      message: 'max_tokens is 201; this gateway allows at most 200 (gateway.limits.maxTokens)',
      param: 'max_tokens',
    });
  });

  it('says first that no instance could serve a request beyond the model’s context', () => {
    expect(costRefusal(900, 500, model, limits)?.reason).toBe('unservable');
  });

  it('caps nothing with 0', () => {
    expect(costRefusal(999, 1, model, { maxPromptTokens: 0, maxTokens: 0 })).toBeUndefined();
  });
});

describe('readRequestHeaders', () => {
  const read = (headers: Record<string, string>) => readRequestHeaders((name) => headers[name]);

  it('reads nothing from nothing', () => {
    expect(read({})).toEqual({ ok: true, fairnessId: undefined, objective: undefined, sloClass: undefined, sloTtftMs: undefined, reportTimings: false });
  });

  it('reads well-formed values', () => {
    expect(
      read({
        [httpHeaders.fairnessId]: 'team_a-1',
        [httpHeaders.objective]: 'premium',
        [httpHeaders.sloClass]: 'critical',
        [httpHeaders.sloTtftMs]: '250.5',
        [httpHeaders.reportTimings]: '1',
        [httpHeaders.sentAt]: '81234.5@3f2a9c1d',
      }),
    ).toEqual({ ok: true, fairnessId: 'team_a-1', objective: 'premium', sloClass: 'critical', sloTtftMs: 250.5, reportTimings: true, sentAt: { atMs: 81234.5, clock: '3f2a9c1d' } });
    expect(read({ [httpHeaders.sloTtftMs]: String(SLO_TTFT_MS_MAX) })).toMatchObject({ ok: true, sloTtftMs: SLO_TTFT_MS_MAX });
  });

  // Each was once accepted, and some failed downstream as 503s.
  it.each([
    [httpHeaders.sloTtftMs, 'Infinity', /x-slo-ttft-ms: "Infinity" is not a TTFT objective: send a decimal number of milliseconds above 0 and at most 3600000/],
    [httpHeaders.sloTtftMs, '1e400', /"1e400"/],
    [httpHeaders.sloTtftMs, '0x10', /"0x10"/],
    [httpHeaders.sloTtftMs, '0', /"0"/],
    [httpHeaders.sloTtftMs, '-5', /"-5"/],
    [httpHeaders.sloTtftMs, ' 5', /" 5"/],
    [httpHeaders.sloTtftMs, '3600001', /"3600001"/],
    [httpHeaders.sloTtftMs, '5, 5', /"5, 5"/],
    [httpHeaders.sloClass, 'urgent', /x-sluice-slo-class: "urgent" is not an SLO class: send one of critical, standard, batch, sheddable, background/],
    [httpHeaders.fairnessId, 'a.b', /x-gateway-inference-fairness-id: "a.b" is not a tenant id: send 1 to 64 letters, digits, "_" or "-"/],
    [httpHeaders.fairnessId, '', /is not a tenant id/],
    [httpHeaders.fairnessId, 'x'.repeat(65), /"x{64}…" is not a tenant id/],
    [httpHeaders.objective, 'pré', /x-gateway-inference-objective: "pré" is not an objective name/],
    [httpHeaders.reportTimings, 'true', /x-sluice-report-timings: "true" is not a switch: send 1/],
    [httpHeaders.sentAt, '81234.5', /x-sluice-sent-at: "81234.5" is not a send stamp: send <monotonic ms>@<host clock id>/],
    [httpHeaders.sentAt, '-1@abc', /is not a send stamp/],
    [httpHeaders.sentAt, '1e9@abc', /is not a send stamp/],
    [httpHeaders.sentAt, '5@a.b', /is not a send stamp/],
  ])('refuses %s: %s, naming the header and what to send', (name, value, message) => {
    const reading = read({ [name]: value });
    expect(reading).toMatchObject({ ok: false, header: name });
    expect(!reading.ok && reading.message).toMatch(message);
  });

  it('either refuses a value or reads a finite TTFT in range, whatever the string', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.double().map(String), fc.integer().map(String), fc.constantFrom('NaN', '1e400', '-0', '.5', '5.', '1_000')), (value) => {
        const reading = read({ [httpHeaders.sloTtftMs]: value });
        if (!reading.ok) return reading.header === httpHeaders.sloTtftMs;
        return Number.isFinite(reading.sloTtftMs) && reading.sloTtftMs! > 0 && reading.sloTtftMs! <= SLO_TTFT_MS_MAX;
      }),
      { numRuns: 2_000 },
    );
  });

  it('reads a tenant id only if a bus subject token and a metric label carry it as is', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 80 }), (value) => {
        const reading = read({ [httpHeaders.fairnessId]: value });
        if (!reading.ok) return true;
        return reading.fairnessId === value && /^[A-Za-z0-9_-]+$/.test(value) && value.length <= 64;
      }),
      { numRuns: 1_000 },
    );
  });
});
