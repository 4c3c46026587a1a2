import { describe, expect, it } from 'vitest';
import { nonCachedTokens, prefillRemotely } from './pd-decider.js';

describe('nonCachedTokens', () => {
  it('is the prompt less its cached blocks, never below zero', () => {
    expect(nonCachedTokens(1_000, 10, 16)).toBe(840);
    expect(nonCachedTokens(100, 10, 16)).toBe(0);
  });
});

describe('prefillRemotely', () => {
  it("dynamo: remote only strictly above max_local_prefill_length", () => {
    const rule = { kind: 'dynamo', maxLocalPrefillLength: 512 } as const;
    expect([511, 512, 513].map((n) => prefillRemotely(rule, n))).toEqual([false, false, true]);
  });

  it('llm-d: remote at or above nonCachedTokens, the boundary where it differs from dynamo', () => {
    const rule = { kind: 'llm-d', nonCachedTokens: 512 } as const;
    expect([511, 512, 513].map((n) => prefillRemotely(rule, n))).toEqual([false, true, true]);
  });

  it('llm-d: a threshold of 0 disaggregates every request, even a fully cached one', () => {
    expect(prefillRemotely({ kind: 'llm-d', nonCachedTokens: 0 }, 0)).toBe(true);
    expect(prefillRemotely({ kind: 'dynamo', maxLocalPrefillLength: 0 }, 0)).toBe(false);
  });

  it('always: every request', () => {
    expect(prefillRemotely({ kind: 'always' }, 0)).toBe(true);
  });
});
