import { describe, expect, it } from 'vitest';
import type { RunRecord } from '@sluice/metrics';
import { Progress, fitToWidth } from './progress.js';

/** A stream that keeps what was written, as a terminal of `columns` columns or a log file. */
function streamOf(tty: boolean, columns?: number) {
  const writes: string[] = [];
  return { writes, stream: { isTTY: tty, ...(columns === undefined ? {} : { columns }), write: (s: string) => writes.push(s) } };
}

function record(i: number, outcome: RunRecord['outcome'], reason?: string): RunRecord {
  return { id: `r${i}`, fairnessId: 't', sloClass: 'standard', priority: 0, arrivalMs: i, endMs: i + 50, outputTokens: 1, status: 200, attempts: 1, outcome, ...(outcome === 'completed' ? { firstTokenMs: i + 1234.4 } : {}), ...(reason ? { reason } : {}) };
}

/** A busy run: thousands of requests, every kind of ending, long rejection reasons. */
function busyProgress(stream: { write(s: string): unknown; isTTY?: boolean; columns?: number }): Progress {
  const progress = new Progress(12_000, stream, () => 123_456);
  for (let i = 0; i < 11_000; i++) progress.onSent();
  for (let i = 0; i < 9_000; i++) progress.onRecord(record(i, 'completed'));
  for (let i = 0; i < 700; i++) progress.onRecord(record(i, 'rejected', i % 2 ? 'flow_capacity' : 'api_key_rate_limited'));
  for (let i = 0; i < 60; i++) progress.onRecord(record(i, 'dropped'));
  for (let i = 0; i < 5; i++) progress.onRecord(record(i, 'failed'));
  return progress;
}

/** What a terminal shows after the last redraw: the text after the last carriage return and erase. */
const lastDrawn = (writes: readonly string[]) => writes.join('').split('\r\u001b[2K').at(-1)!.replace(/\n$/, '');

describe('Progress on a terminal', () => {
  it.each([80, 60, 40, 12])('never reaches the last column of a %i-column terminal, so the line never wraps', (columns) => {
    const { writes, stream } = streamOf(true, columns);
    busyProgress(stream).stop();
    const shown = lastDrawn(writes);
    expect(shown.length).toBeLessThan(columns);
    expect(shown).not.toContain('\n');
    expect(shown.startsWith('11000/')).toBe(true);
  });

  it('keeps the counts and TTFT on 80 columns, leaving out the rejection reasons', () => {
    const { writes, stream } = streamOf(true, 80);
    busyProgress(stream).stop();
    const shown = lastDrawn(writes);
    expect(shown).toContain('11000/12000 sent');
    expect(shown).toContain('9000 ok');
    expect(shown).toContain('700 rej');
    expect(shown).toContain('TTFT 1234/1234 ms');
    expect(shown).not.toContain('flow_capacity');
  });

  it('shows the whole line, reasons and all, where it fits', () => {
    const { writes, stream } = streamOf(true, 250);
    const progress = busyProgress(stream);
    progress.stop();
    expect(lastDrawn(writes)).toBe(progress.line());
    expect(progress.line()).toContain('rejected 700 (api_key_rate_limited 350, flow_capacity 350)');
  });

  it('takes 80 columns when the terminal does not say its width', () => {
    const { writes, stream } = streamOf(true);
    busyProgress(stream).stop();
    expect(lastDrawn(writes).length).toBeLessThan(80);
  });
});

describe('Progress in a log file', () => {
  it('writes whole plain lines, uncut, with no carriage return or escape', () => {
    const { writes, stream } = streamOf(false, 40);
    const progress = busyProgress(stream);
    progress.stop();
    expect(writes).toEqual([`${progress.line()}\n`]);
    expect(writes[0]).not.toContain('\r');
    expect(writes[0]).not.toContain('\u001b');
  });
});

describe('fitToWidth', () => {
  it('drops whole parts from the end until the line fits', () => {
    expect(fitToWidth(['aaaa', 'bb', 'cc'], 12)).toBe('aaaa · bb');
    expect(fitToWidth(['aaaa', 'bb', 'cc'], 14)).toBe('aaaa · bb · cc');
  });

  it('cuts a first part wider than the width with an ellipsis', () => {
    expect(fitToWidth(['abcdefgh', 'x'], 5)).toBe('abcd…');
    expect(fitToWidth(['abcdefgh'], 0)).toBe('');
  });
});
