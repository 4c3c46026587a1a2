import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildReport, type RunRecord } from '@sluice/metrics';
import { writeReportJson } from '@sluice/report';
import { fromActualSend, readHopSource } from './hop-source.js';

const TIMED = { clientSendMs: 0.5, gatewayInMs: 1, toAdmissionMs: 0.5, admissionMs: 0.04, toFlowMs: 0.6, flowQueueMs: 2, toRouterMs: 0.7, routingMs: 0.15, toWorkerMs: 0.8, workerQueueMs: 9, prefillMs: 28.7, decodeMs: 50 };

/** A served live record: scheduled at 100 ms, sent `lagMs` later, first token 47 ms after the send. */
function served(index: number, lagMs: number | undefined): RunRecord {
  const sentMs = 100 + (lagMs ?? 0);
  return { id: `r${index}`, fairnessId: 't', sloClass: 'standard', priority: 0, arrivalMs: 100, ...(lagMs === undefined ? {} : { clientLagMs: lagMs }), firstTokenMs: sentMs + 47, endMs: sentMs + 97, outputTokens: 4, outcome: 'completed', status: 200, attempts: 1, timings: TIMED };
}

describe('a live report as a hop source', () => {
  it('times a record from its actual send: the client’s lag is not part of the path', () => {
    expect(fromActualSend(served(0, 30)).arrivalMs).toBe(130);
    expect(fromActualSend(served(0, 0)).arrivalMs).toBe(100);
    expect(fromActualSend(served(0, undefined)).arrivalMs).toBe(100);
  });

  it('gives a late request the same path as a punctual one with the same answer', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'sluice-hops-')), 'report.json');
    // r0 sent on time, r1 30 ms late, r2 from a report older than the lag (none recorded).
    const records = [served(0, 0), served(1, 30), served(2, undefined)];
    writeReportJson(file, { version: 1, tool: 'sluice run', startedAt: '2026-11-29T00:00:00Z', gateway: 'http://gw', workload: { file: 'w.yaml', spec: {}, requests: 3 }, config: null, summary: buildReport(records), records });
    const { samples } = readHopSource(file, 'empirical');
    expect(samples).toHaveLength(3);
    // 47 ms after the send, less 44 ms timed (client send 0.5 + 43.49): 3.01 ms on the way back, for each.
    for (const sample of samples!) expect(sample.returnUs).toBeCloseTo(3010, 6);
  });
});
