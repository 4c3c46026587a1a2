import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadConfig, loadProfile } from '@sluice/config';
import { buildReport, cacheHits, type RunRecord, type RunReport, type Summary } from '@sluice/metrics';
import { generateWorkloadRequests, parseWorkloadSpec, type WorkloadRequest } from '@sluice/workload';
import { describe, expect, it } from 'vitest';
import { simulate } from './index.js';

/**
 * The examples under examples/ say which configurations to compare, why they differ, and what the
 * twin gives for each. This file runs every `sluice simulate` command an example writes, as the
 * CLI does (same config loader, profile, workload generator, twin and summary), checks each figure
 * written under a command against that run to the digits written, and checks the effect the
 * example promises with a margin, so an example whose effect fades fails here.
 *
 * Figures are written under their command, clauses split by `;`, items by `,`:
 *   [group] TTFT p50 N ms[, p90 N ms, p99 N ms, mean N ms] | [group] completed N of M | Jain X
 *   | [group] attainment N% | [group] goodput N req/s
 * where group is a tenant or an SLO class (none: the whole run). A clause this file cannot read
 * fails the test rather than being skipped.
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const read = (path: string) => readFileSync(`${ROOT}${path}`, 'utf8');

interface Run {
  readonly summary: RunReport;
  readonly records: readonly RunRecord[];
  readonly requests: readonly WorkloadRequest[];
  readonly beta: readonly number[];
}

const runs = new Map<string, Run>();

/** One twin run of a workload file under config flags, as `sluice simulate FILE FLAGS` makes it (memoized). */
function runTwin(file: string, flags: readonly string[]): Run {
  const key = JSON.stringify([file, flags]);
  const known = runs.get(key);
  if (known) return known;
  const spec = parseWorkloadSpec(read(file));
  // No environment: a SLUICE_* variable where the tests run must not change the examples' config.
  const config = loadConfig({ env: {}, argv: flags });
  const profile = loadProfile(config);
  const requests = generateWorkloadRequests(spec);
  const { records } = simulate(requests, { config, profile });
  const run = { summary: buildReport(records, { expectedRequests: requests.length }), records, requests, beta: profile.beta };
  runs.set(key, run);
  return run;
}

/** Words of a shell command line: whitespace separates, single or double quotes group. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  for (const m of line.matchAll(/(?:[^\s'"]+|'[^']*'|"[^"]*")+/g)) words.push(m[0].replace(/'([^']*)'|"([^"]*)"/g, '$1$2'));
  return words;
}

interface Command {
  /** The flags after the workload file, unquoted. */
  readonly flags: string[];
  /** Lines of figures written under the command. */
  readonly figures: string[];
}

/**
 * The `sluice simulate` commands of a text and the figures under each: a command line, then the
 * lines indented deeper than it (comment markers `#` are stripped first).
 */
function simulateCommands(text: string, file: string): Command[] {
  const lines = text.split('\n').map((l) => l.replace(/^#/, ''));
  const commands: Command[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = /^(\s*)(?:npx )?sluice simulate (.*)$/.exec(lines[i]!);
    if (!m) continue;
    const [workload, ...flags] = shellWords(m[2]!);
    expect(workload, `a command in ${file} runs another workload`).toBe(file);
    const figures: string[] = [];
    const indent = m[1]!.length;
    while (i + 1 < lines.length && /^\s*/.exec(lines[i + 1]!)![0].length > indent && lines[i + 1]!.trim() !== '') figures.push(lines[++i]!.trim());
    commands.push({ flags, figures });
  }
  return commands;
}

/** The flags of every `sluice up` line in a YAML comment. */
function upCommands(text: string): string[][] {
  return [...text.matchAll(/^#\s+sluice up(.*)$/gm)].map((m) => shellWords(m[1]!));
}

interface Figure {
  readonly what: string;
  readonly written: string;
  readonly measured: number;
}

function groupOf(summary: RunReport, name: string | undefined): Summary {
  if (name === undefined) return summary.overall;
  const fairnessId = summary.byFairnessId[name];
  const sloClass = summary.bySloClass[name];
  if (fairnessId && sloClass) throw new Error(`"${name}" is both a tenant and an SLO class`);
  const group = fairnessId ?? sloClass;
  if (!group) throw new Error(`no tenant or SLO class "${name}" in the run`);
  return group;
}

const KEYWORDS = new Set(['TTFT', 'p50', 'p90', 'p99', 'mean', 'completed', 'Jain', 'attainment', 'goodput']);

/** Every figure of one line, paired with what the run measured. */
function figuresOf(line: string, summary: RunReport): Figure[] {
  const figures: Figure[] = [];
  for (const clause of line.split(';')) {
    const words = clause.trim().split(/[\s,]+/).filter(Boolean);
    const name = KEYWORDS.has(words[0]!) ? undefined : words.shift();
    const group = groupOf(summary, name);
    const who = name ?? 'all';
    let inTtft = false;
    const take = (unit?: string): string => {
      const value = words.shift();
      if (value === undefined || !/^\d+(\.\d+)?$/.test(value)) throw new Error(`"${clause.trim()}": expected a number, got ${value}`);
      if (unit !== undefined && words.shift() !== unit) throw new Error(`"${clause.trim()}": ${value} should be followed by ${unit}`);
      return value;
    };
    while (words.length > 0) {
      const word = words.shift()!;
      if (word === 'TTFT') inTtft = true;
      else if (word === 'p50' || word === 'p90' || word === 'p99' || word === 'mean') {
        if (!inTtft) throw new Error(`"${clause.trim()}": ${word} of what? (TTFT first)`);
        figures.push({ what: `${who} TTFT ${word}`, written: take('ms'), measured: group.ttft[word]! });
      } else if (word === 'completed') {
        figures.push({ what: `${who} completed`, written: take(), measured: group.completed });
        if (words.shift() !== 'of') throw new Error(`"${clause.trim()}": completed N of M`);
        figures.push({ what: `${who} requests`, written: take(), measured: group.requests });
      } else if (word === 'attainment') {
        const value = words.shift() ?? '';
        if (!value.endsWith('%')) throw new Error(`"${clause.trim()}": attainment N%`);
        words.unshift(value.slice(0, -1));
        figures.push({ what: `${who} SLO attainment %`, written: take(), measured: (group.goodput.attainment ?? Number.NaN) * 100 });
      } else if (word === 'goodput') {
        figures.push({ what: `${who} goodput req/s`, written: take('req/s'), measured: group.goodput.requestsPerSec });
      } else if (word === 'Jain' && name === undefined) {
        figures.push({ what: 'Jain', written: take(), measured: summary.jain.index });
      } else throw new Error(`"${clause.trim()}": cannot read "${word}"`);
    }
  }
  return figures;
}

/** The measured value, rounded to as many decimals as the written one, equals it. */
function expectFigures(figures: readonly Figure[], where: string): void {
  expect(figures.length, `${where}: no figures`).toBeGreaterThan(0);
  const wrong = figures.filter((f) => {
    const decimals = f.written.split('.')[1]?.length ?? 0;
    return f.measured.toFixed(decimals) !== f.written;
  });
  expect(
    wrong.map((f) => `${f.what}: written ${f.written}, the twin gives ${f.measured}`),
    `${where}: figures that no longer match the twin`,
  ).toEqual([]);
}

/** An example file: its commands, each run in the twin, their figures checked against the runs. */
function example(file: string) {
  const text = read(file);
  const commands = simulateCommands(text, file);
  const ran = commands.map((c) => ({ ...c, run: runTwin(file, c.flags) }));
  return {
    text,
    commands: ran,
    checkFigures(): void {
      for (const c of ran) {
        for (const line of c.figures) expectFigures(figuresOf(line, c.run.summary), `${file} ${c.flags.join(' ') || '(defaults)'}`);
      }
    },
    /** The run whose flags mention `marker` (null: the run with no flags) and, given `without`, none mention that. */
    run(marker: string | null, without?: string): Run {
      const mentions = (c: Command, word: string) => c.flags.some((f) => f.includes(word));
      const found = ran.filter((c) => (marker === null ? c.flags.length === 0 : mentions(c, marker)) && (without === undefined || !mentions(c, without)));
      expect(found, `${file}: one command ${marker === null ? 'without flags' : `with ${marker}`}${without === undefined ? '' : ` and without ${without}`}`).toHaveLength(1);
      return found[0]!.run;
    },
  };
}

/** Every `sluice up` the comment tells the user to start has the same flags as a twin command. */
function expectUpMatchesSimulate(ex: ReturnType<typeof example>): void {
  const up = upCommands(ex.text).map((f) => [...f].sort());
  expect(up.length).toBeGreaterThan(0);
  expect(up).toEqual(ex.commands.map((c) => [...c.flags].sort()));
}

const ttft = (s: Summary, p: 'p50' | 'p90' | 'p99' | 'mean') => s.ttft[p]!;
const admitted = (s: Summary) => s.completed / s.requests;

describe('examples/workloads: each shows the effect its comment promises, with the twin figures it writes', () => {
  it('quickstart: light load, nothing held or refused; the shared system prompt is found in cache', () => {
    const ex = example('examples/workloads/quickstart.yaml');
    expect(ex.commands).toHaveLength(1);
    ex.checkFigures();
    const { summary, records, requests, beta } = ex.run(null);
    expect(summary.window.durationMs / 1000, 'about a minute').toBeGreaterThan(55);
    expect(summary.window.durationMs / 1000, 'about a minute').toBeLessThan(70);
    expect(summary.overall.completed).toBe(summary.overall.requests);
    expect(Math.max(...records.map((r) => r.timings?.flowQueueMs ?? 0)), 'the flow controller held a request').toBe(0);
    // acme-chat's prompts are the 512-token system prompt and their own part. A hit prefills only
    // its own part, a miss the whole prompt; the line between them is the whole prompt less half
    // the system prompt, β0 + β1·(prompt − 256).
    const promptOf = new Map(requests.map((q) => [`r${q.index}`, q.inputTokens.length]));
    const chat = records.filter((r) => r.sloClass === 'critical');
    const hits = chat.filter((r) => r.timings!.prefillMs! * 1000 < beta[0]! + beta[1]! * (promptOf.get(r.id)! - 256));
    expect(hits.length / chat.length).toBeGreaterThan(0.9);
  });

  it('noisy-neighbour: round-robin fairness cuts the quiet tenant’s TTFT several times over', () => {
    const ex = example('examples/workloads/noisy-neighbour.yaml');
    expect(ex.commands).toHaveLength(2);
    expectUpMatchesSimulate(ex);
    ex.checkFigures();
    const strict = ex.run(null);
    const roundRobin = ex.run('round-robin-fairness-policy');
    // Fairness acts only on what the flow controller holds: it must be holding requests.
    for (const { records } of [strict, roundRobin]) {
      expect(records.filter((r) => (r.timings?.flowQueueMs ?? 0) > 100).length).toBeGreaterThan(records.length / 4);
    }
    const quiet = (r: Run) => r.summary.byFairnessId['quiet']!;
    const noisy = (r: Run) => r.summary.byFairnessId['noisy']!;
    expect(ttft(quiet(strict), 'p50') / ttft(quiet(roundRobin), 'p50')).toBeGreaterThan(4);
    expect(ttft(quiet(strict), 'p90') / ttft(quiet(roundRobin), 'p90')).toBeGreaterThan(2);
    // The noisy tenant pays a little, not the quiet tenant's gain.
    expect(ttft(noisy(roundRobin), 'p50') / ttft(noisy(strict), 'p50')).toBeLessThan(1.25);
    // Every request is served in both, so Jain's index (over tokens served) cannot differ.
    for (const r of [strict, roundRobin]) expect(r.summary.overall.completed).toBe(r.summary.overall.requests);
    expect(roundRobin.summary.jain.index).toBe(strict.summary.jain.index);
    // README.md walks through this comparison: its restart must give the example's round-robin flags.
    const restart = /^#\s+npm start -- --no-demo (.*)$/m.exec(read('README.md'));
    expect(restart, 'README.md: the restart with round-robin fairness').not.toBeNull();
    expect(shellWords(restart![1]!)).toEqual(ex.commands.find((c) => c.flags.length > 0)!.flags);
  });

  it('overload-shedding: busy-threshold turns critical requests away too, fewer than sheddable ones; the sheddable band limit never does', () => {
    const ex = example('examples/workloads/overload-shedding.yaml');
    expect(ex.commands).toHaveLength(2);
    expectUpMatchesSimulate(ex);
    ex.checkFigures();
    const busy = ex.run('busy-threshold').summary;
    const band = ex.run('priorityBands').summary;
    const critical = (s: RunReport) => s.bySloClass['critical']!;
    const sheddable = (s: RunReport) => s.bySloClass['sheddable']!;
    // At the door and at dispatch, by the load signal: some critical requests refused too, and
    // more sheddable ones (flow control sends critical ones to the routers first).
    expect(busy.conservation.books.rejected.byReason).toEqual({ all_workers_busy: busy.conservation.books.rejected.total });
    expect(admitted(critical(busy))).toBeLessThan(1);
    expect(admitted(sheddable(busy))).toBeLessThan(admitted(critical(busy)) / 2);
    // In flow control: every critical request served, most sheddable ones refused at once.
    expect(band.conservation.books.rejected.byReason).toEqual({ flow_capacity: band.conservation.books.rejected.total });
    expect(admitted(critical(band))).toBe(1);
    expect(admitted(sheddable(band))).toBeLessThan(0.3);
    // Critical TTFT about the same in both: within 15%.
    expect(Math.abs(ttft(critical(busy), 'p50') / ttft(critical(band), 'p50') - 1)).toBeLessThan(0.15);
  });

  it('slo-deadline: ordering a flow by arrival + TTFT target lifts the tight-target requests’ attainment well above FCFS', () => {
    const ex = example('examples/workloads/slo-deadline.yaml');
    expect(ex.commands).toHaveLength(2);
    expectUpMatchesSimulate(ex);
    ex.checkFigures();
    const fcfs = ex.run(null);
    const sloDeadline = ex.run('slo-deadline-ordering-policy');
    // Ordering acts only on what flow control holds: it must be holding requests.
    expect(fcfs.records.filter((r) => (r.timings?.flowQueueMs ?? 0) > 1000).length).toBeGreaterThan(fcfs.records.length / 4);
    // The interactive client's requests carried their 1.5 s target to flow control (the twin read
    // it from the headers sluice run sends), and under slo-deadline they go first.
    const interactive = (r: Run) => buildReport(r.records.filter((q) => q.slo?.ttftMs === 1500));
    const before = interactive(fcfs).goodput.attainment!;
    const after = interactive(sloDeadline).goodput.attainment!;
    expect(interactive(fcfs).overall.requests).toBeGreaterThan(100);
    // The comment's "from 30% to 80%", with a margin.
    expect(before).toBeLessThan(0.4);
    expect(after).toBeGreaterThan(0.7);
    expect(ttft(interactive(sloDeadline).overall, 'p50')).toBeLessThan(ttft(interactive(fcfs).overall, 'p50') * 0.7);
    // The loose-target requests pay with waiting they could afford: all still within 30 s.
    const reportWriter = buildReport(sloDeadline.records.filter((q) => q.slo?.ttftMs === 30000));
    expect(reportWriter.goodput.attainment).toBe(1);
    // Same requests served either way; more of them within their targets.
    expect(sloDeadline.summary.overall.completed).toBe(fcfs.summary.overall.completed);
    expect(sloDeadline.summary.goodput.requestsPerSec).toBeGreaterThan(fcfs.summary.goodput.requestsPerSec * 1.2);
    for (const [run, words] of [[fcfs, /from 30%/], [sloDeadline, /to 80%/]] as const) {
      expect(ex.text).toMatch(words);
      expect(Math.round(interactive(run).goodput.attainment! * 100)).toBe(Number(words.source.replace(/\D/g, '')));
    }
  });

  it('prefix-heavy: with caches too small for every prefix, prefix-aware routing cuts TTFT several times over', () => {
    const ex = example('examples/workloads/prefix-heavy.yaml');
    expect(ex.commands).toHaveLength(2);
    expectUpMatchesSimulate(ex);
    ex.checkFigures();
    const roundRobin = ex.run('--router.policy=round-robin').summary.overall;
    const weighted = ex.run('--router.policy=weighted').summary.overall;
    expect(ttft(roundRobin, 'p50') / ttft(weighted, 'p50')).toBeGreaterThan(3);
    expect(ttft(roundRobin, 'mean') / ttft(weighted, 'mean')).toBeGreaterThan(1.5);
  });

  it('precise-prefix: with evictions, routing on the caches’ KV events halves the TTFT tail of routing on the router’s belief', () => {
    const ex = example('examples/workloads/precise-prefix.yaml');
    expect(ex.commands).toHaveLength(2);
    expectUpMatchesSimulate(ex);
    ex.checkFigures();
    const approximate = ex.run('prefix-affinity:2');
    const precise = ex.run('precise-prefix-cache:2');
    expect(ttft(approximate.summary.overall, 'p90') / ttft(precise.summary.overall, 'p90')).toBeGreaterThan(1.8);
    expect(ttft(approximate.summary.overall, 'mean') / ttft(precise.summary.overall, 'mean')).toBeGreaterThan(1.5);
    // Not by finding a prefix more often, but more of it: fewer requests sent where theirs was evicted.
    expect(Math.abs(cacheHits(precise.records).hitRate! - cacheHits(approximate.records).hitRate!)).toBeLessThan(0.05);
    expect(cacheHits(precise.records).meanCachedTokens!).toBeGreaterThan(cacheHits(approximate.records).meanCachedTokens!);
  });

  it('disaggregated: at equal GPU count, two prefill and two decode instances trade a higher TTFT for a steadier stream', () => {
    const ex = example('examples/workloads/disaggregated.yaml');
    expect(ex.commands).toHaveLength(2);
    expectUpMatchesSimulate(ex);
    ex.checkFigures();
    const aggregated = ex.run('least-loaded', 'roles').summary.overall;
    const disaggregated = ex.run('--worker.roles.prefill=2').summary.overall;
    expect(disaggregated.completed).toBe(aggregated.completed);
    // The first token costs more: half the instances prefill, then the blocks move.
    expect(ttft(disaggregated, 'p50') / ttft(aggregated, 'p50')).toBeGreaterThan(1.1);
    // No prefill chunk in a decode step: the stream's worst gaps go from a prefill step's to a decode step's.
    expect(disaggregated.itl.p99! / aggregated.itl.p99!).toBeLessThan(0.3);
    expect(disaggregated.tpot.p50!).toBeLessThan(aggregated.tpot.p50! * 0.95);
    expect(disaggregated.e2e.p50!).toBeLessThan(aggregated.e2e.p50!);
  });

  it('predictive-admission: slo-predictive admits about as many, mostly critical and standard, at a higher critical p99', () => {
    const ex = example('examples/workloads/predictive-admission.yaml');
    expect(ex.commands).toHaveLength(2);
    expectUpMatchesSimulate(ex);
    ex.checkFigures();
    const busy = ex.run('--admission.policy=busy-threshold').summary;
    const predictive = ex.run('--admission.policy=slo-predictive').summary;
    const cls = (s: RunReport, c: string) => s.bySloClass[c]!;
    // Both are shedding: the offered load is over what two instances serve.
    expect(busy.conservation.books.rejected.total).toBeGreaterThan(busy.overall.requests / 5);
    expect(Math.abs(predictive.overall.completed / busy.overall.completed - 1)).toBeLessThan(0.1);
    expect(admitted(cls(predictive, 'critical'))).toBe(1);
    expect(admitted(cls(busy, 'critical'))).toBeLessThan(0.8);
    expect(admitted(cls(predictive, 'standard'))).toBeGreaterThan(admitted(cls(busy, 'standard')) + 0.2);
    expect(admitted(cls(predictive, 'sheddable'))).toBeLessThan(admitted(cls(busy, 'sheddable')) / 2);
    // Higher under slo-predictive (725 against 592 ms when last run: busy-threshold's routers now
    // also keep requests off busy instances, which lowers its tail).
    expect(ttft(cls(predictive, 'critical'), 'p99') / ttft(cls(busy, 'critical'), 'p99')).toBeGreaterThan(1.15);
  });

  it('config/admission-chain: busy-threshold before the token bucket serves more than the bucket first (a busy refusal spends no tokens)', () => {
    const file = 'examples/config/admission-chain.yaml';
    const workload = 'examples/workloads/overload-shedding.yaml';
    const text = read(file);
    const commands = simulateCommands(text, workload);
    expect(commands).toHaveLength(2);
    for (const c of commands) expect(c.flags.slice(0, 2)).toEqual(['--config', file]);
    // The live commands are the twin's.
    expect(upCommands(text).map((f) => [...f].sort())).toEqual(commands.map((c) => [...c.flags].sort()));
    const [busyFirst, bucketFirst] = commands.map((c) => ({ ...c, run: runTwin(workload, c.flags) }));
    for (const c of [busyFirst!, bucketFirst!]) for (const line of c.figures) expectFigures(figuresOf(line, c.run.summary), `${file} ${c.flags.join(' ')}`);
    expect(loadConfig({ env: {}, argv: busyFirst!.flags }).admission.policy).toEqual(['busy-threshold', 'token-bucket']);
    const books = (r: Run) => r.summary.conservation.books.rejected.byReason;
    // Both checks refuse some in both orders.
    for (const r of [busyFirst!.run, bucketFirst!.run]) {
      expect(books(r)['all_workers_busy']).toBeGreaterThan(50);
      expect(books(r)['insufficient_tokens']).toBeGreaterThan(50);
    }
    // The promised effect: the bucket refuses fewer when it only charges what passed the busy check, and more are served.
    expect(books(busyFirst!.run)['insufficient_tokens']! / books(bucketFirst!.run)['insufficient_tokens']!).toBeLessThan(0.85);
    expect(busyFirst!.run.summary.overall.completed / bucketFirst!.run.summary.overall.completed).toBeGreaterThan(1.03);
  });

});
