import { describe, expect, it } from 'vitest';
import { RefusalLog } from './http-refusal-log.js';

/** A log on a fake clock whose scheduled flushes the test runs by hand. */
function fakeLog() {
  const lines: string[] = [];
  let now = 0;
  const timers: { at: number; run: () => void }[] = [];
  const log = new RefusalLog(
    (line) => lines.push(line),
    () => now,
    10_000,
    (run, ms) => (timers.push({ at: now + ms, run }), 0 as unknown as ReturnType<typeof setTimeout>),
  );
  const advance = (ms: number) => {
    now += ms;
    for (const timer of timers.splice(0).filter((t) => t.at <= now)) timer.run();
  };
  return { log, lines, advance };
}

describe('RefusalLog', () => {
  it('logs the first refusal of a reason at once and the rest of the interval as one line with the count', () => {
    const { log, lines, advance } = fakeLog();
    log.refused('too_many_connections', '10.0.0.1');
    for (let i = 0; i < 5_000; i++) log.refused('too_many_connections', `10.0.0.${i % 200}`);
    expect(lines).toEqual(['refused a connection (too_many_connections): 10.0.0.1']);
    advance(10_000);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toBe('refused 5000 more connections (too_many_connections) in the last 10 s; the latest: 10.0.0.199');
  });

  it('keeps reasons apart, and logs at once again after a quiet interval', () => {
    const { log, lines, advance } = fakeLog();
    log.refused('connection_limit', 'a');
    log.refused('headers_timeout', 'b');
    expect(lines).toHaveLength(2);
    advance(10_000);
    expect(lines).toHaveLength(2); // nothing pending: no line
    log.refused('connection_limit', 'c');
    expect(lines[2]).toBe('refused a connection (connection_limit): c');
  });
});
