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

  // A chaos run shares the CI machine with every other suite, and one failed there once, unexplained
  // (none failed in about two hundred runs here beside busy loops or the container suite). So a
  // scenario whose first run fails runs a second time; the first run's verdicts are printed either
  // way, and npm test's summary lists a test that passed only on a retry, so the failure still shows.
  it.each(SCENARIOS.filter((f) => f !== 'worker-crash-mid-stream.yaml'))(
    '%s: every fault fires, every invariant holds',
    { timeout: 180_000, retry: 1 },
    async (file) => {
      const problems = await runScenario(file);
      if (problems.length > 0) console.warn(`chaos ${file} --short failed:\n  ${problems.join('\n  ')}`);
      expect(problems).toEqual([]);
    },
  );
});

/** Runs one shipped scenario as a user would; what went wrong, each in a line (none: it passed). */
async function runScenario(file: string): Promise<string[]> {
  const out = join(mkdtempSync(join(tmpdir(), 'sluice-chaos-')), 'run');
  const run = await runSluice(['chaos', join(REPO_ROOT, 'examples', 'chaos', file), '--short', '--out', out, '--json'], { timeoutMs: 170_000 });
  const stderr = `stderr: ${run.stderr.slice(-4000)}`;
  const reportFile = join(out, 'report.json');
  if (!existsSync(reportFile)) return [`no report.json; exit ${String(run.code)}`, stderr];
  const chaos = (JSON.parse(readFileSync(reportFile, 'utf8')) as RunReportFile).chaos!;
  const problems = [
    ...chaos.faults.filter((f) => f.error !== null).map((f) => `${f.action} ${f.target ?? ''}: ${f.error ?? ''}`),
    ...chaos.faults.filter((f) => f.firedAtMs === null).map((f) => `${f.action} ${f.target ?? ''} did not fire: ${f.detail}`),
    ...chaos.invariants.filter((i) => i.status === 'fail').map((i) => `${i.id}: ${i.details.join('; ')}`),
  ];
  if (!chaos.passed && problems.length === 0) problems.push('the report says it did not pass');
  if (run.code !== 0) problems.push(`exit ${String(run.code)}`, stderr);
  return problems;
}
