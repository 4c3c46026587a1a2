// `npm test`: build, then lint (module boundaries included) and typecheck side by side, then every vitest suite
// (unit, integration and integration-shared, containers). Stops at the first failing step; exits non-zero on any failure.
// Ends with one plain summary line, "N passed, N failed", that any CI can read.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { relative } from 'node:path';

const env = { ...process.env, NX_NO_CLOUD: 'true', NX_DAEMON: 'false' };
const reports = ['.sluice/vitest-report.json', '.sluice/vitest-timing-report.json'];
// Each file's wall time, hooks included (tools/test-file-times.mjs), one file per vitest step.
const fileTimes = ['.sluice/vitest-file-times.json', '.sluice/vitest-timing-file-times.json'];
const timesReporter = '--reporter=./tools/test-file-times.mjs';

/**
 * Runs the given steps at once (`[title, command, args, extraEnv]` each) and reports each with
 * its time; true if all passed. One at a time for most; lint and typecheck go together, as each
 * keeps one core busy for its whole run and CI's machine has two.
 */
async function steps(...list) {
  const results = await Promise.all(
    list.map(([title, command, args, extraEnv = {}]) => {
      console.log(`\n▶ ${title}: ${command} ${args.join(' ')}`);
      const started = Date.now();
      return new Promise((resolve) => {
        const child = spawn(command, args, { stdio: 'inherit', env: { ...env, ...extraEnv } });
        const seconds = () => ((Date.now() - started) / 1000).toFixed(1);
        child.on('error', () => resolve([title, null, seconds()]));
        child.on('exit', (code, signal) => resolve([title, code ?? signal, seconds()]));
      });
    }),
  );
  for (const [title, status, seconds] of results) {
    if (status === 0) console.log(`✓ ${title} (${seconds}s)`);
    else console.error(`✗ ${title} failed (exit ${status}) after ${seconds}s`);
  }
  return results.every(([, status]) => status === 0);
}

mkdirSync('.sluice', { recursive: true });
for (const report of [...reports, ...fileTimes]) rmSync(report, { force: true });
const npx = 'npx';
const ok =
  (await steps(['build', 'npm', ['run', 'build', '--silent']])) &&
  (await steps(['lint', npx, ['eslint', '.']], ['typecheck', npx, ['tsc', '-p', 'tsconfig.json', '--noEmit']])) &&
  (await steps(['tests', npx, ['vitest', 'run', '--project', 'unit', '--project', 'integration', '--project', 'integration-shared', '--project', 'containers', '--reporter=default', '--reporter=json', timesReporter, `--outputFile.json=${reports[0]}`], { TEST_FILE_TIMES: fileTimes[0] }])) &&
  // The real-time timing checks run alone, after everything else, so no other test competes for the CPU.
  (await steps(['timing tests', npx, ['vitest', 'run', '--project', 'timing', '--reporter=default', '--reporter=json', timesReporter, `--outputFile.json=${reports[1]}`], { TEST_FILE_TIMES: fileTimes[1] }]));

const totals = { passed: 0, failed: 0, skipped: 0 };
// Tests that passed only on a retry (vitest keeps the failed attempts' messages): listed, so a
// flaky check stays in sight instead of disappearing into the pass count.
const retried = [];
for (const report of reports.filter((r) => existsSync(r))) {
  const { numPassedTests, numFailedTests, numPendingTests, testResults = [] } = JSON.parse(readFileSync(report, 'utf8'));
  totals.passed += numPassedTests;
  totals.failed += numFailedTests;
  totals.skipped += numPendingTests;
  // A file that failed outside any test (a beforeAll, an import) reports no failed test: count it once.
  for (const file of testResults) {
    if (file.status === 'failed' && !file.assertionResults?.some((a) => a.status === 'failed')) totals.failed += 1;
    for (const test of file.assertionResults ?? []) {
      if (test.status === 'passed' && test.failureMessages?.length > 0) retried.push({ file: relative(process.cwd(), file.name), title: test.title, first: test.failureMessages[0].split('\n')[0].slice(0, 400) });
    }
  }
}
// Where the time goes, so a budget overrun points at its files: each file's wall time, its
// beforeAll and afterAll included (where most integration files start and stop a cluster).
// vitest's own report times a file from its first test's start to its last test's end only.
const walls = Object.assign({}, ...fileTimes.filter((f) => existsSync(f)).map((f) => JSON.parse(readFileSync(f, 'utf8'))));
const slowest = Object.entries(walls)
  .map(([name, seconds]) => ({ name: relative(process.cwd(), name), seconds }))
  .sort((a, b) => b.seconds - a.seconds)
  .slice(0, 10);
if (slowest.length > 0) {
  console.log('\nslowest files (wall time, start-up and stop in hooks included):');
  for (const file of slowest) console.log(`  ${file.seconds.toFixed(1).padStart(7)} s  ${file.name}`);
}
if (retried.length > 0) {
  console.log('\npassed on a retry (the first attempt failed):');
  for (const test of retried) console.log(`  ${test.file} > ${test.title}\n      ${test.first}`);
}
console.log(`\ntests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(ok ? 0 : 1);
