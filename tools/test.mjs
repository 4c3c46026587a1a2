// `npm test`: build, lint (module boundaries included), typecheck, then every vitest suite
// (unit, integration and integration-shared, containers). Stops at the first failing step; exits non-zero on any failure.
// Ends with one plain summary line, "N passed, N failed", that any CI can read.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { relative } from 'node:path';

const env = { ...process.env, NX_NO_CLOUD: 'true', NX_DAEMON: 'false' };
const reports = ['.sluice/vitest-report.json', '.sluice/vitest-timing-report.json'];

function step(title, command, args) {
  console.log(`\n▶ ${title}: ${command} ${args.join(' ')}`);
  const started = Date.now();
  const result = spawnSync(command, args, { stdio: 'inherit', env });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (result.status !== 0) {
    console.error(`✗ ${title} failed (exit ${result.status ?? result.signal}) after ${seconds}s`);
    return false;
  }
  console.log(`✓ ${title} (${seconds}s)`);
  return true;
}

mkdirSync('.sluice', { recursive: true });
for (const report of reports) rmSync(report, { force: true });
const npx = 'npx';
const ok =
  step('build', 'npm', ['run', 'build', '--silent']) &&
  step('lint', npx, ['eslint', '.']) &&
  step('typecheck', npx, ['tsc', '-p', 'tsconfig.json', '--noEmit']) &&
  step('tests', npx, ['vitest', 'run', '--project', 'unit', '--project', 'integration', '--project', 'integration-shared', '--project', 'containers', '--reporter=default', '--reporter=json', `--outputFile=${reports[0]}`]) &&
  // The real-time timing checks run alone, after everything else, so no other test competes for the CPU.
  step('timing tests', npx, ['vitest', 'run', '--project', 'timing', '--reporter=default', '--reporter=json', `--outputFile=${reports[1]}`]);

const totals = { passed: 0, failed: 0, skipped: 0 };
const files = [];
for (const report of reports.filter((r) => existsSync(r))) {
  const { numPassedTests, numFailedTests, numPendingTests, testResults = [] } = JSON.parse(readFileSync(report, 'utf8'));
  files.push(...testResults);
  totals.passed += numPassedTests;
  totals.failed += numFailedTests;
  totals.skipped += numPendingTests;
  // A file that failed outside any test (a beforeAll, an import) reports no failed test: count it once.
  for (const file of testResults) {
    if (file.status === 'failed' && !file.assertionResults?.some((a) => a.status === 'failed')) totals.failed += 1;
  }
}
// Where the time goes, so a budget overrun points at its files. vitest's report times a file from
// its first test's start to its last test's end: start-up in beforeAll and stop in afterAll are
// not in it (they are the gaps between files).
const slowest = files
  .map((file) => ({ name: relative(process.cwd(), file.name), seconds: (file.endTime - file.startTime) / 1000 }))
  .filter((file) => Number.isFinite(file.seconds))
  .sort((a, b) => b.seconds - a.seconds)
  .slice(0, 10);
if (slowest.length > 0) {
  console.log('\nslowest files (time in their tests, hooks not counted):');
  for (const file of slowest) console.log(`  ${file.seconds.toFixed(1).padStart(7)} s  ${file.name}`);
}
console.log(`\ntests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(ok ? 0 : 1);
