import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '@sluice/launcher';
import type { RunReportFile } from '@sluice/report';
import { runSluice } from '@sluice/testing';

/**
 * Every scenario shipped in examples/chaos, run as a user runs it (the built CLI, its own cluster of
 * real processes) on the short time axis: each fault fires, and no invariant is violated. The
 * worker-crash scenario is checked in detail in chaos.int-spec.ts.
 */
const SCENARIOS = readdirSync(join(REPO_ROOT, 'examples', 'chaos')).filter((f) => f.endsWith('.yaml')).sort();

describe('the shipped chaos scenarios, --short', () => {
  it('ships the eleven scenarios the docs describe', () => {
    expect(SCENARIOS.map((f) => f.replace(/\.yaml$/, ''))).toEqual([
      'admission-crash',
      'duplicate-handoffs',
      'flow-controller-restart',
      'lagging-signals',
      'lossy-router-link',
      'nats-node-loss',
      'nats-restart',
      'router-pause',
      'slow-worker',
      'worker-crash-mid-stream',
      'worker-drain',
    ]);
  });

  it.each(SCENARIOS.filter((f) => f !== 'worker-crash-mid-stream.yaml'))(
    '%s: every fault fires, every invariant holds',
    async (file) => {
      const out = join(mkdtempSync(join(tmpdir(), 'sluice-chaos-')), 'run');
      const run = await runSluice(['chaos', join(REPO_ROOT, 'examples', 'chaos', file), '--short', '--out', out, '--json'], { timeoutMs: 170_000 });
      // The report's verdicts first: they say what failed in a line, where the exit code's message is
      // the whole JSON summary (CI keeps only the tail of a long failure).
      const reportFile = join(out, 'report.json');
      expect(existsSync(reportFile), `no report.json; exit ${run.code}; stderr:\n${run.stderr.slice(-4000)}`).toBe(true);
      const report = JSON.parse(readFileSync(reportFile, 'utf8')) as RunReportFile;
      const chaos = report.chaos!;
      for (const fault of chaos.faults) {
        expect(fault.error, `${fault.action} ${fault.target ?? ''}`).toBeNull();
        expect(fault.firedAtMs, `${fault.action} fired`).not.toBeNull();
      }
      const failed = chaos.invariants.filter((i) => i.status === 'fail').map((i) => `${i.id}: ${i.details.join('; ')}`);
      expect(failed).toEqual([]);
      expect(run.code, `stderr:\n${run.stderr.slice(-4000)}`).toBe(0);
      expect(chaos.passed).toBe(true);
    },
    180_000,
  );
});
