// `npm test`: build, lint (module boundaries included), typecheck, then every vitest suite
// (unit, integration, containers). Stops at the first failing step; exits non-zero on any failure.
// Ends with one plain summary line, "N passed, N failed", that any CI can read.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, existsSync, rmSync } from 'node:fs';

const env = { ...process.env, NX_NO_CLOUD: 'true', NX_DAEMON: 'false' };
const report = '.sluice/vitest-report.json';

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
rmSync(report, { force: true });
const npx = 'npx';
const ok =
  step('build', 'npm', ['run', 'build', '--silent']) &&
  step('lint', npx, ['eslint', '.']) &&
  step('typecheck', npx, ['tsc', '-p', 'tsconfig.json', '--noEmit']) &&
  step('tests', npx, ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile=${report}`, ...process.argv.slice(2)]);

if (existsSync(report)) {
  const { numPassedTests, numFailedTests, numPendingTests } = JSON.parse(readFileSync(report, 'utf8'));
  console.log(`\ntests: ${numPassedTests} passed, ${numFailedTests} failed, ${numPendingTests} skipped`);
}
process.exit(ok ? 0 : 1);
