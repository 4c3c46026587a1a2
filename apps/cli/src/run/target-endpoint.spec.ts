import { describe, expect, it } from 'vitest';
import type { RunRecord } from '@sluice/metrics';
import { absentFromTarget, targetBaseUrl } from './target-endpoint.js';

describe('targetBaseUrl', () => {
  it.each([
    ['http://127.0.0.1:8000', 'http://127.0.0.1:8000'],
    ['http://127.0.0.1:8000/', 'http://127.0.0.1:8000'],
    ['http://127.0.0.1:8000/v1', 'http://127.0.0.1:8000'],
    ['http://127.0.0.1:8000/v1/', 'http://127.0.0.1:8000'],
    ['https://llm.example.com/serving/v1', 'https://llm.example.com/serving'],
    ['http://[::1]:8000/v1', 'http://[::1]:8000'],
  ])('reads %s as the base %s', (text, url) => {
    expect(targetBaseUrl(text)).toEqual({ url });
  });

  it.each(['localhost:8000', 'ftp://host/v1', 'http://host:8000/v1?x=1', 'not a url'])('refuses %s with a reason', (text) => {
    expect(targetBaseUrl(text)).toEqual({ problem: expect.stringContaining(text) });
  });
});

describe('absentFromTarget', () => {
  const served = (timings?: RunRecord['timings']): RunRecord => ({ id: 'r0', fairnessId: 't', sloClass: 's', priority: 0, arrivalMs: 0, endMs: 1, outputTokens: 1, outcome: 'completed', status: 200, attempts: 1, ...(timings ? { timings } : {}) });

  it('names the stage timings when no answer carried them, and the engine counters with their reason', () => {
    const absent = absentFromTarget([served(), served()], 'a target’s engines are not known');
    expect(absent).toHaveLength(2);
    expect(absent[0]).toMatch(/^stage timings/);
    expect(absent[1]).toBe('engine counters: a target’s engines are not known');
  });

  it('leaves the stage timings out of the list when the answers did carry them (sluice’s gateway with its headers)', () => {
    expect(absentFromTarget([served({ admissionMs: 0.2 }), served()], undefined)).toEqual([]);
  });
});
