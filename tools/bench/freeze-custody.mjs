// At-most-once execution under a frozen stage (docs/behaviour.md §6): N runs of the freeze probe
// apps/gateway/src/custody-freeze.int-spec.ts (50 req/s, one of two replicas of the stage SIGSTOPped
// for --freeze-ms, then SIGCONT), each on a fresh local cluster, counting worker completions
// against the gateway's answers. Prints each run's line and the totals: requests run twice, run
// after their error answer, and the answers by code.
//   npm run build && node tools/bench/freeze-custody.mjs [--runs 10] [--freeze-ms 8000] [--stage router|flow-controller|admission]
import { spawnSync } from 'node:child_process';
import { commandLine } from './bench-run.mjs';

const { option } = commandLine();
const runs = Number(option('runs', '10'));
const freezeMs = Number(option('freeze-ms', '8000'));
const stage = option('stage', 'router');
const LINE = /(router|flow-controller|admission) frozen (\d+) ms at \d+ req\/s: (\d+) requests, (\d+) answered 200, errors (\{.*?\}); worker completions (\d+), (\d+) run twice, (\d+) run after an error answer; (\d+) late copies left by the woken replica/;

const totals = { requests: 0, ok: 0, completions: 0, twice: 0, afterError: 0, left: 0, errors: {} };
for (let run = 1; run <= runs; run++) {
  const result = spawnSync('npx', ['vitest', 'run', '--project', 'integration', 'apps/gateway/src/custody-freeze.int-spec.ts', '-t', `one ${stage} replica`], {
    env: { ...process.env, CUSTODY_FREEZE_MS: String(freezeMs) },
    encoding: 'utf8',
  });
  const match = LINE.exec(result.stdout + result.stderr);
  if (!match) {
    process.stderr.write(`run ${run}: no result line (exit ${result.status})\n${(result.stdout + result.stderr).slice(-3_000)}\n`);
    continue;
  }
  console.log(`run ${run}: ${match[0]}`);
  // What the probe printed of each request run twice or after its error answer.
  for (const line of (result.stdout + result.stderr).split('\n').filter((l) => l.includes(': done ['))) console.log(`  ${line.trim()}`);
  totals.requests += Number(match[3]);
  totals.ok += Number(match[4]);
  totals.completions += Number(match[6]);
  totals.twice += Number(match[7]);
  totals.afterError += Number(match[8]);
  totals.left += Number(match[9]);
  for (const [code, n] of Object.entries(JSON.parse(match[5]))) totals.errors[code] = (totals.errors[code] ?? 0) + n;
}
console.log(`${runs} runs, ${stage} frozen ${freezeMs} ms: ${totals.requests} requests, ${totals.ok} answered 200, errors ${JSON.stringify(totals.errors)}; worker completions ${totals.completions}; run twice ${totals.twice}; run after an error answer ${totals.afterError}; late copies left by the woken replica ${totals.left}`);
