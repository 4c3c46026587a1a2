import { describe, expect, it } from 'vitest';
import { BusRejections } from './bus-rejections.js';

describe('BusRejections', () => {
  it('counts by subscription and reason, not by the subject a message came on', () => {
    const rejections = new BusRejections(() => 0);
    for (let i = 0; i < 1_000; i++) rejections.refused('sluice.v1.worker.*.done', i % 2 ? 'schema' : 'malformed', `sluice.v1.worker.forged-${i}.done`, 'x');
    rejections.refused('sluice.v1.flow.submit', 'oversized', 'sluice.v1.flow.submit', 'x');
    rejections.handlerFailed('sluice.v1.flow.submit');
    expect(rejections.rejections()).toEqual([
      { subject: 'sluice.v1.worker.*.done', reason: 'malformed', count: 500 },
      { subject: 'sluice.v1.worker.*.done', reason: 'schema', count: 500 },
      { subject: 'sluice.v1.flow.submit', reason: 'oversized', count: 1 },
    ]);
    expect(rejections.handlerFailures()).toEqual([{ subject: 'sluice.v1.flow.submit', count: 1 }]);
  });

  it('asks for one log line per subscription per 10 s, saying how many went unlogged', () => {
    let now = 0;
    const rejections = new BusRejections(() => now);
    expect(rejections.refused('s.>', 'schema', 's.a', 'id: Too big')).toBe('refused a message on s.a (schema): id: Too big');
    expect(rejections.refused('s.>', 'schema', 's.b', 'again')).toBeUndefined();
    expect(rejections.refused('t', 'malformed', 't', 'payload is not JSON')).toBe('refused a message on t (malformed): payload is not JSON');
    now = 10_000;
    expect(rejections.refused('s.>', 'oversized', 's.c', 'big')).toBe('refused a message on s.c (oversized): big (and 1 more refused on s.> since the last line)');
  });
});
