import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DecisionTraceLine } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import { LiveDecisionTraceFile, type TraceDropReason } from './live-decision-trace-file.js';

const line = (i: number) => ({ requestId: `r${i}`, attempt: 0 }) as unknown as DecisionTraceLine;
const turn = () => new Promise((resolve) => setImmediate(resolve));
/** The file's lines once a write still in flight at close has landed (it lands in its own place). */
async function settled(file: string, count: number): Promise<string[]> {
  for (let waited = 0; lines(file).length < count && waited < 2_000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
  return lines(file);
}
const lines = (file: string) => readFileSync(file, 'utf8').split('\n').filter((l) => l !== '').map((l) => (JSON.parse(l) as { requestId: string }).requestId);

describe('LiveDecisionTraceFile: a live router\'s trace, off its event loop and bounded', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-live-trace-'));

  it('writes nothing during the turn that made the lines, all of them in order after it', async () => {
    const file = join(dir, 'order.ndjson');
    const trace = new LiveDecisionTraceFile(file, () => undefined);
    for (let i = 0; i < 500; i++) trace.write(line(i));
    expect(readFileSync(file, 'utf8')).toBe('');
    await turn();
    for (let i = 500; i < 1_000; i++) trace.write(line(i));
    trace.close();
    expect(await settled(file, 1_000)).toEqual(Array.from({ length: 1_000 }, (_, i) => `r${i}`));
  });

  it('drops what the disk has not taken past maxPendingBytes, and stops the file at maxFileBytes, counting each line', async () => {
    const one = Buffer.byteLength(`${JSON.stringify(line(0))}\n`);
    const dropped: TraceDropReason[] = [];
    const backlog = join(dir, 'backlog.ndjson');
    const slow = new LiveDecisionTraceFile(backlog, (reason) => dropped.push(reason), { maxPendingBytes: one * 3, maxFileBytes: 2 ** 20 });
    for (let i = 0; i < 5; i++) slow.write(line(i));
    expect(dropped).toEqual(['backlog', 'backlog']);
    slow.close();
    expect(lines(backlog)).toEqual(['r0', 'r1', 'r2']);

    dropped.length = 0;
    const capped = join(dir, 'capped.ndjson');
    const full = new LiveDecisionTraceFile(capped, (reason) => dropped.push(reason), { maxPendingBytes: 2 ** 20, maxFileBytes: one * 4 });
    for (let i = 0; i < 3; i++) full.write(line(i));
    await turn();
    await new Promise((resolve) => setTimeout(resolve, 20));
    for (let i = 3; i < 6; i++) full.write(line(i));
    full.close();
    expect(dropped).toEqual(['file_full', 'file_full']);
    expect(await settled(capped, 4)).toEqual(['r0', 'r1', 'r2', 'r3']);
  });
});
