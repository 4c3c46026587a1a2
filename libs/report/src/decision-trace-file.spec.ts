import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { micros, type DecisionTraceLine } from '@sluice/contracts';
import { DecisionTraceError, DecisionTraceFile, forEachDecision } from './decision-trace-file.js';

const dir = mkdtempSync(join(tmpdir(), 'sluice-decision-trace-'));

function line(i: number): DecisionTraceLine {
  return {
    atUs: micros(1_000 * i),
    requestId: `r${i}`,
    attempt: 0,
    model: 'm',
    policy: 'least-loaded',
    candidates: 2,
    instance: `w-r${i % 2}`,
    regret: i % 3,
    top: [{ instanceId: `w-r${i % 2}`, score: 0 - i, effectiveLoad: i, signals: { queueDepth: i, batchSize: 0, inFlight: 0, kvUtilization: 0.5, snapshotAgeMs: null } }],
  };
}

const read = (file: string) => {
  const lines: DecisionTraceLine[] = [];
  forEachDecision(file, (l) => lines.push(l));
  return lines;
};

describe('a decision trace file', () => {
  it('holds one line per decision, in order, read back as written', () => {
    const file = join(dir, 'nested', 'a.ndjson');
    const trace = new DecisionTraceFile(file);
    const written = Array.from({ length: 500 }, (_, i) => line(i));
    for (const l of written) trace.write(l);
    trace.close();
    expect(readFileSync(file, 'utf8').trimEnd().split('\n')).toHaveLength(500);
    expect(read(file)).toEqual(written);
  });

  it('holds at most its flush size: past it, the lines are on disk before close', () => {
    const file = join(dir, 'streamed.ndjson');
    const trace = new DecisionTraceFile(file, 4_096);
    let i = 0;
    while (statSync(file).size === 0) {
      trace.write(line(i++));
      expect(i, 'a flush within 4 KiB of lines').toBeLessThan(100);
    }
    const onDisk = statSync(file).size;
    expect(onDisk).toBeGreaterThanOrEqual(4_096);
    // With flush size 0 (the live router's), every line is on disk as it is written.
    const eager = join(dir, 'eager.ndjson');
    const live = new DecisionTraceFile(eager, 0);
    live.write(line(1));
    expect(read(eager)).toEqual([line(1)]);
    live.close();
    trace.close();
  });

  it('refuses a line that is not a decision, naming the file and line', () => {
    const file = join(dir, 'bad.ndjson');
    writeFileSync(file, `${JSON.stringify(line(0))}\n\n${JSON.stringify({ ...line(1), instance: 7 })}\n`);
    expect(() => read(file)).toThrow(DecisionTraceError);
    expect(() => read(file)).toThrow(/bad\.ndjson:3: not a decision: instance/);
    writeFileSync(file, '{"atUs":');
    expect(() => read(file)).toThrow(/bad\.ndjson:1: not JSON/);
  });
});
