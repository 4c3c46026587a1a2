import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '@sluice/launcher';
import type { RunReportFile } from '@sluice/report';
import { runSluice } from '@sluice/testing';

/**
 * `sluice chaos` as a user runs it (the built CLI, a child process): it starts its own cluster
 * (nats-server and every service as real processes), runs a shipped scenario on a short time
 * axis, and kills a real worker process mid-stream.
 */
describe('sluice chaos', () => {
  it(
    'runs worker-crash-mid-stream --short: the kill really happens, the worker comes back with a new pid, every invariant holds',
    async () => {
      const out = join(mkdtempSync(join(tmpdir(), 'sluice-chaos-')), 'run');
      const run = await runSluice(['chaos', join(REPO_ROOT, 'examples', 'chaos', 'worker-crash-mid-stream.yaml'), '--short', '--out', out, '--json'], { timeoutMs: 170_000 });
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
      const printed = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { report: string };
      expect(printed.report).toBe(join(out, 'report.json'));
      const report = JSON.parse(readFileSync(printed.report, 'utf8')) as RunReportFile;
      const chaos = report.chaos!;

      expect(report.tool).toBe('sluice chaos');
      expect(chaos.scenario).toMatchObject({ name: 'worker-crash-mid-stream', scale: 0.2 });
      expect(chaos.target).toBe('local');

      // The kill fired, on the pid worker-1 had; the supervisor started worker-1 again with another.
      const [kill] = chaos.faults;
      expect(kill).toMatchObject({ action: 'kill', target: 'worker-1', error: null });
      expect(kill!.firedAtMs).not.toBeNull();
      const before = chaos.processesBefore.find((p) => p.name === 'worker-1')!;
      const after = chaos.processesAfter.find((p) => p.name === 'worker-1')!;
      expect(kill!.detail).toBe(`SIGKILL pid ${before.id}`);
      expect(after.restarts).toBeGreaterThanOrEqual(1);
      expect(after.id).not.toBe(before.id);
      expect(() => process.kill(Number(before.id), 0)).toThrow();
      // The other processes were left alone.
      for (const p of chaos.processesAfter.filter((q) => q.name !== 'worker-1')) expect(p.restarts, p.name).toBe(0);

      // Every invariant was checked; none failed (the books of the restarted worker are skipped, and say why).
      expect(chaos.invariants.map((i) => i.id)).toEqual(['client-outcomes', 'gateway-books', 'usage-tokens', 'stage-books', 'deadline', 'failed-share']);
      for (const i of chaos.invariants) expect(i.status, `${i.id}: ${i.details.join('; ')}`).not.toBe('fail');
      expect(chaos.invariants.find((i) => i.id === 'stage-books')!.details.join('\n')).toContain('skipped (worker-1 restarted)');
      expect(chaos.passed).toBe(true);

      // What the client saw agrees with the section: every request accounted for, tokens = usage.
      expect(Object.values(chaos.outcomesByReason).reduce((a, b) => a + b, 0)).toBe(report.workload.requests);
      for (const r of report.records.filter((x) => x.outcome === 'completed')) expect(r.usageCompletionTokens).toBe(r.outputTokens);
      expect(kill!.recovery).not.toBe('not fired');
      expect(readFileSync(join(out, 'report.html'), 'utf8')).toContain('data-plot="chaos-ttft"');
    },
    180_000,
  );

  it('names the key path of a bad scenario and exits 2 without starting anything', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-chaos-bad-'));
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'name: bad\nworkload: missing.yaml\nfaults:\n  - { atMs: 100, action: pause, target: router }\n  - { atMs: 200, action: kill, target: db }\n');
    const run = await runSluice(['chaos', file]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('faults[0].forMs');
    expect(run.stderr).toContain('faults[1].target: must be gateway, admission');
  });
});
