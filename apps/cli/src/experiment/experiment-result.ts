import { parseDocument } from 'yaml';
import type { JudgedClaim, Verdict } from './claims.js';
import type { Experiment } from './experiment-file.js';

/** What one set of runs (the twin's, or the live cluster's) found. */
export interface ExperimentRuns {
  readonly where: 'twin' | 'live';
  readonly verdict: Verdict;
  readonly claims: readonly JudgedClaim[];
  /** Each arm's report.json. */
  readonly reports: Readonly<Record<string, string>>;
}

const figure = (n: number | null): string => (n === null ? '—' : Number.isInteger(n) ? String(n) : n.toFixed(Math.abs(n) >= 100 ? 1 : 3));

/** The claims as a plain-text table: what each says, the two figures, and whether it held. */
export function claimsTable(runs: ExperimentRuns): string[] {
  const lines = [`${runs.where}: ${runs.verdict}`];
  for (const { claim, left, right, holds } of runs.claims) {
    const against = claim.vs === undefined ? '' : ` vs ${claim.vs}${claim.ratio === undefined ? '' : ` × ${claim.ratio}`}`;
    const op = claim.op === 'within' ? `within ±${(claim.tolerance! * 100).toFixed(0)}% of` : claim.op;
    lines.push(`  ${holds ? 'holds ' : 'fails '} ${claim.says}`);
    lines.push(`         ${claim.metric}: ${claim.arm} ${figure(left)} ${op} ${figure(right)}${against}`);
  }
  return lines;
}

/** The recorded block of an experiment file, as `--record` writes it. */
export function recordedOf(runs: ExperimentRuns): { verdict: Verdict; claims: { left: number | null; right: number | null; holds: boolean }[] } {
  return { verdict: runs.verdict, claims: runs.claims.map(({ left, right, holds }) => ({ left, right, holds })) };
}

/** The experiment file with `recorded.<where>` replaced, its comments and layout kept. */
export function withRecorded(text: string, runs: readonly ExperimentRuns[]): string {
  const doc = parseDocument(text);
  for (const r of runs) doc.setIn(['recorded', r.where], doc.createNode(recordedOf(r), { flow: false }));
  return doc.toString({ lineWidth: 0 });
}

/** The twin's figures against the recorded ones: each difference, in words (empty: they agree). */
export function recordedDrift(experiment: Experiment, twin: ExperimentRuns): string[] {
  const recorded = experiment.recorded.twin;
  if (recorded === undefined) return ['no recorded twin figures (run `sluice experiment FILE --record`)'];
  const drift: string[] = [];
  if (recorded.verdict !== twin.verdict) drift.push(`verdict: recorded ${recorded.verdict}, now ${twin.verdict}`);
  if (recorded.claims.length !== twin.claims.length) drift.push(`claims: recorded ${recorded.claims.length}, now ${twin.claims.length}`);
  twin.claims.forEach((c, i) => {
    const r = recorded.claims[i];
    if (r === undefined) return;
    if (!sameFigure(r.left, c.left) || !sameFigure(r.right, c.right)) drift.push(`claim ${i + 1} (${c.claim.says}): recorded ${figure(r.left)} vs ${figure(r.right)}, now ${figure(c.left)} vs ${figure(c.right)}`);
  });
  return drift;
}

/** The twin is deterministic; YAML keeps a float to its shortest exact form, so equal is equal. */
const sameFigure = (a: number | null, b: number | null) => a === b || (a !== null && b !== null && Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b)));
