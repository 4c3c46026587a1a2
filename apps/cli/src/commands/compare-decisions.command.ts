import { resolve } from 'node:path';
import { parseCommandLine } from '@sluice/config';
import type { DecisionTraceLine } from '@sluice/contracts';
import { compareDecisions, forEachDecision, forEachReportRecord, type DecisionComparison, type RegretSummary } from '@sluice/report';
import type { Output } from '../terminal/output.js';
import { EXIT, type CliContext, type Command } from './command.js';

const USAGE = `Usage: sluice compare-decisions A.ndjson B.ndjson [--ids live/report.json] [--json]

Compares two decision traces (the live router's, router.decisionTrace; the twin's, sluice simulate
--decision-trace) decision by decision: aligned by request id and attempt, a pair agrees when both
chose the same instance (and the same prefill instance, disaggregated). Instances are matched by
their rank within their worker process, processes in sorted order of worker id. Prints the
agreement (count and share), the agreement where both routers scored the candidates alike and
over the opening run of decisions made in step (same requests, same order, same scores: there a
same-policy, same-seed pair must agree), the first disagreement with both sides' top candidates,
and each side's regret.

The live router names requests by the gateway's ids, the twin by the workload's (r0, r1, …): with
--ids, a live run's report.json (its records carry both) renames the gateway's ids of either trace
to the workload's.

Options:
  --ids FILE   a live run's report.json: rename gateway request ids to workload ids
  --json       print the comparison as JSON
  -h, --help   this text`;

export const compareDecisionsCommand: Command = {
  usage: USAGE,

  async run(argv, ctx: CliContext): Promise<number> {
    const { stdout: out, stderr: err } = ctx;
    const parsed = parseCommandLine(argv, { flags: ['help', 'json'], values: ['ids'], maxPositionals: 2 }, ctx.cwd);
    if (parsed.flags.has('help')) {
      out.line(USAGE);
      return EXIT.OK;
    }
    const problems = [...parsed.problems];
    if (parsed.positionals.length !== 2) problems.push('give two decision traces: A.ndjson B.ndjson');
    if (problems.length > 0) {
      for (const p of problems) err.line(`sluice compare-decisions: ${p}`);
      err.line('Run `sluice compare-decisions --help` for usage.');
      return EXIT.USAGE;
    }
    let comparison: DecisionComparison;
    try {
      const idsFile = parsed.values.get('ids');
      const rename = idsFile === undefined ? undefined : workloadIds(resolve(ctx.cwd, idsFile));
      const [a, b] = parsed.positionals.map((file) => readTrace(resolve(ctx.cwd, file), rename)) as [DecisionTraceLine[], DecisionTraceLine[]];
      comparison = compareDecisions(a, b);
    } catch (error) {
      err.line(`sluice compare-decisions: ${(error as Error).message}`);
      return EXIT.USAGE;
    }
    if (parsed.flags.has('json')) out.line(JSON.stringify(comparison));
    else printComparison(out, parsed.positionals as [string, string], comparison);
    return EXIT.OK;
  },
};

/** Gateway request id → workload id, from a live run's records, read one at a time (from records.ndjson when the report names it). */
function workloadIds(file: string): ReadonlyMap<string, string> {
  const ids = new Map<string, string>();
  forEachReportRecord(file, (record) => {
    if (record.gatewayRequestId !== undefined) ids.set(record.gatewayRequestId, record.id);
  });
  if (ids.size === 0) throw new Error(`${file}: no record carries the gateway's request id (a live run's report.json does)`);
  return ids;
}

/** A whole trace, each line validated; held, since the comparison indexes one side by request. */
function readTrace(file: string, rename: ReadonlyMap<string, string> | undefined): DecisionTraceLine[] {
  const lines: DecisionTraceLine[] = [];
  forEachDecision(file, (line) => lines.push(rename?.has(line.requestId) ? { ...line, requestId: rename.get(line.requestId)! } : line));
  return lines;
}

const share = (x: number | null) => (x === null ? '–' : `${(100 * x).toFixed(1)}%`);
const num = (x: number | null) => (x === null ? '–' : Number(x.toPrecision(4)).toString());

function printComparison(out: Output, [nameA, nameB]: readonly [string, string], c: DecisionComparison): void {
  out.line(`A ${nameA}: ${c.a.decisions} decisions (${c.a.none} with no instance)`);
  out.line(`B ${nameB}: ${c.b.decisions} decisions (${c.b.none} with no instance)`);
  out.line(`matched by request and attempt: ${c.matched} (only in A ${c.onlyA}, only in B ${c.onlyB})`);
  out.line(`agree: ${c.agree} of ${c.matched} (${share(c.agreeShare)})`);
  out.line(`  where both scored the candidates alike: ${c.agreeSameScores} of ${c.sameScores}`);
  out.line(`  in step (same order, same scores, from the first decision on): ${c.agreeInStep} of ${c.inStep}`);
  out.line(`regret A: ${regretText(c.a.regret)}`);
  out.line(`regret B: ${regretText(c.b.regret)}`);
  if (!c.firstDisagreement) return;
  const { a, b } = c.firstDisagreement;
  out.line('');
  out.line(`first disagreement: ${a.requestId} attempt ${a.attempt}`);
  for (const [side, line, first] of [['A', a, c.a.firstAtUs], ['B', b, c.b.firstAtUs]] as const) {
    const prefill = line.pd?.prefillInstance === undefined ? '' : ` (prefill ${line.pd.prefillInstance})`;
    // Live times are epoch µs, the twin's virtual: each side's from its own first decision.
    out.line(`  ${side} at +${((line.atUs - (first ?? 0)) / 1000).toFixed(1)} ms: ${line.instance ?? 'none'}${prefill}, regret ${num(line.regret)}, ${line.candidates} candidates`);
    line.top.forEach((t, rank) => {
      const s = t.signals;
      out.line(`    ${rank + 1}. ${t.instanceId} score ${num(t.score)} load ${t.effectiveLoad} (queue ${s.queueDepth}, batch ${s.batchSize}, in flight ${s.inFlight}, kv ${num(s.kvUtilization)})`);
    });
  }
}

function regretText(r: RegretSummary): string {
  if (r.count === 0) return 'no decisions';
  return `${r.count} decisions, mean ${num(r.mean)}, p50 ${num(r.p50)}, p99 ${num(r.p99)}, max ${num(r.max)}, > 0 in ${share(r.positiveShare)}`;
}
