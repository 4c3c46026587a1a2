import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '@sluice/launcher';
import { parse, stringify } from 'yaml';

/** infra/prometheus/rules: the rule files (`*.rules.yml`) and their promtool tests (`*.test.yml`). */
export const RULES_DIR = join(REPO_ROOT, 'infra', 'prometheus', 'rules');
export const PROMETHEUS_CONFIG = join(REPO_ROOT, 'infra', 'prometheus', 'prometheus.yml');

/** One rule of a rule file, as Prometheus reads it. */
export interface PrometheusRule {
  readonly alert?: string;
  readonly record?: string;
  readonly expr: string;
  readonly for?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
}

export interface RuleFile {
  readonly file: string;
  readonly groups: readonly { readonly name: string; readonly rules: readonly PrometheusRule[] }[];
}

const filesEnding = (suffix: string, dir: string) =>
  readdirSync(dir)
    .filter((f) => f.endsWith(suffix))
    .sort();

export const ruleFileNames = (dir = RULES_DIR) => filesEnding('.rules.yml', dir);
export const ruleTestFileNames = (dir = RULES_DIR) => filesEnding('.test.yml', dir);

export function loadRuleFiles(dir = RULES_DIR): RuleFile[] {
  return ruleFileNames(dir).map((file) => ({ file, ...(parse(readFileSync(join(dir, file), 'utf8')) as Omit<RuleFile, 'file'>) }));
}

/** The rule files a promtool test file loads (its `rule_files`). */
export function ruleFilesTestedBy(testFile: string, dir = RULES_DIR): string[] {
  return (parse(readFileSync(join(dir, testFile), 'utf8')) as { rule_files?: string[] }).rule_files ?? [];
}

export interface PromtoolResult {
  readonly ok: boolean;
  readonly output: string;
}

/** Runs Debian's promtool (PROMTOOL_BIN to use another); a non-zero exit is a result, not an error. */
export async function promtool(args: readonly string[], cwd = RULES_DIR): Promise<PromtoolResult> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.env.PROMTOOL_BIN ?? 'promtool', args, { cwd, maxBuffer: 16 * 1024 * 1024 });
    return { ok: true, output: stdout + stderr };
  } catch (error) {
    const e = error as NodeJS.ErrnoException & { stdout?: string; stderr?: string };
    if (e.code === 'ENOENT') throw new Error('promtool is not installed (Debian: apt-get install prometheus; .ci/run installs it)', { cause: error });
    return { ok: false, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

/** A broken copy of one rule's expression, and what was broken. */
export interface Mutant {
  readonly rule: string;
  readonly change: string;
  readonly expr: string;
}

const COMPARISON_FLIPS: Readonly<Record<string, string>> = { '>': '<=', '<': '>=', '>=': '<', '<=': '>', '==': '!=', '!=': '==' };

/**
 * The comparison operators of an expression outside label matchers and strings (where `=~`,
 * `!=` and `=` select labels), with where they are and the number they compare with, if any
 * (`> 0.1`, `>= bool 1`, `> 14.4 * 0.01` compares with 14.4 first).
 */
export function comparisonsIn(expr: string): { index: number; op: string; number?: { index: number; text: string } }[] {
  const found: { index: number; op: string; number?: { index: number; text: string } }[] = [];
  let depth = 0;
  let quote: string | null = null;
  for (let i = 0; i < expr.length; i++) {
    const c = expr[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
      continue;
    }
    if (c === '"' || c === "'" || c === '`') quote = c;
    else if (c === '{') depth++;
    else if (c === '}') depth--;
    else if (depth === 0) {
      const op = /^(?:[<>!=]=|[<>])/.exec(expr.slice(i))?.[0];
      if (!op) continue;
      const after = /^(\s*(?:bool\s+)?)(\d+(?:\.\d+)?)(?![\w.])/.exec(expr.slice(i + op.length));
      found.push({ index: i, op, ...(after ? { number: { index: i + op.length + after[1]!.length, text: after[2]! } } : {}) });
      i += op.length - 1;
    }
  }
  return found;
}

const splice = (s: string, index: number, removed: number, inserted: string) => s.slice(0, index) + inserted + s.slice(index + removed);

/**
 * Broken versions of a rule: it never fires (or records nothing), it always fires (or records a
 * constant), each comparison inverted, and each threshold halved and doubled. A suite that
 * catches them all has a case on each side of every threshold.
 */
export function mutantsOf(rule: PrometheusRule): Mutant[] {
  const name = rule.alert ?? rule.record ?? '?';
  const mutants: Mutant[] = [
    { rule: name, change: 'empty (never fires, records nothing)', expr: 'vector(1) < 0' },
    { rule: name, change: 'constant (always fires, records 1)', expr: 'vector(1)' },
  ];
  for (const { index, op, number } of comparisonsIn(rule.expr)) {
    mutants.push({ rule: name, change: `${op} inverted to ${COMPARISON_FLIPS[op]!} at ${index}`, expr: splice(rule.expr, index, op.length, COMPARISON_FLIPS[op]!) });
    if (!number || Number(number.text) === 0) continue;
    for (const [what, factor] of [['halved', 0.5], ['doubled', 2]] as const) {
      const changed = String(Number(number.text) * factor);
      mutants.push({ rule: name, change: `threshold ${number.text} ${what} to ${changed}`, expr: splice(rule.expr, number.index, number.text.length, changed) });
    }
  }
  return mutants;
}

/**
 * Copies the rules folder, replaces one rule's expression in `ruleFile` with the mutant's, and
 * runs `promtool check rules` on the copy (it must still be a valid rule) and then `promtool test
 * rules` on the given test files.
 */
export async function runMutant(ruleFile: string, mutant: Mutant, testFiles: readonly string[]): Promise<{ valid: PromtoolResult; tested: PromtoolResult }> {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-rules-mutant-'));
  try {
    cpSync(RULES_DIR, dir, { recursive: true });
    const file = parse(readFileSync(join(dir, ruleFile), 'utf8')) as { groups: { rules: { alert?: string; record?: string; expr: string }[] }[] };
    const rule = file.groups.flatMap((g) => g.rules).find((r) => (r.alert ?? r.record) === mutant.rule);
    if (!rule) throw new Error(`${ruleFile} has no rule ${mutant.rule}`);
    rule.expr = mutant.expr;
    writeFileSync(join(dir, ruleFile), stringify(file));
    const valid = await promtool(['check', 'rules', ruleFile], dir);
    const tested = valid.ok ? await promtool(['test', 'rules', ...testFiles], dir) : { ok: false, output: 'not run' };
    return { valid, tested };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
