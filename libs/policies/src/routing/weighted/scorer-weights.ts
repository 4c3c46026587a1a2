import { z } from 'zod';
import { formatFieldIssue } from '@sluice/contracts';
import { SCORER_NAMES, type ScorerName } from '../scorers/registry.js';

/** A weight per scorer; a scorer left out (or weighted 0) is not run. */
export type ScorerWeights = Readonly<Partial<Record<ScorerName, number>>>;

/** docs/behaviour.md §4 (BLIS's default weighted-scoring profile): prefix-affinity:3, queue-depth:2, kv-utilization:2. */
export const DEFAULT_SCORER_WEIGHTS: ScorerWeights = Object.freeze({ 'prefix-affinity': 3, 'queue-depth': 2, 'kv-utilization': 2 });

/** Weights config could not be read; the message names every problem found. */
export class ScorerWeightsError extends Error {
  override readonly name = 'ScorerWeightsError';
  constructor(readonly problems: readonly string[]) {
    super(`invalid scorer weights: ${problems.join('; ')}`);
  }
}

interface WeightIssue {
  /** Relative to the weights value: the scorer's key in the object form, [] in the string form. */
  readonly path: string[];
  readonly message: string;
}

const isScorerName = (name: string): name is ScorerName => (SCORER_NAMES as readonly string[]).includes(name);

/** Reads either form into weights keyed in SCORER_NAMES order, with every problem found. */
function readScorerWeights(input: string | Readonly<Record<string, unknown>>): { weights: ScorerWeights; issues: WeightIssue[] } {
  const issues: WeightIssue[] = [];
  const given = new Map<ScorerName, number>();
  const stringForm = typeof input === 'string';
  const add = (name: string, raw: unknown) => {
    const path = stringForm ? [] : [name];
    if (!isScorerName(name)) {
      issues.push({ path, message: `unknown scorer "${name}"; allowed: ${SCORER_NAMES.join(', ')}` });
      return;
    }
    if (given.has(name)) {
      issues.push({ path, message: `scorer "${name}" is given twice` });
      return;
    }
    // The string form's weights are text; the object form's must already be numbers.
    const weight = typeof raw === 'number' ? raw : stringForm && typeof raw === 'string' && raw !== '' ? Number(raw) : Number.NaN;
    if (!Number.isFinite(weight) || weight < 0) {
      const got = typeof raw === 'number' ? String(raw) : (JSON.stringify(raw) ?? String(raw));
      issues.push({ path, message: `the weight of "${name}" must be a non-negative finite number, got ${got}` });
      return;
    }
    given.set(name, weight);
  };

  if (stringForm) {
    const entries = input.trim() === '' ? [] : input.split(',');
    for (const entry of entries) {
      const colon = entry.indexOf(':');
      if (colon < 0) {
        issues.push({ path: [], message: `"${entry.trim()}" is not name:weight (e.g. "queue-depth:2")` });
        continue;
      }
      add(entry.slice(0, colon).trim(), entry.slice(colon + 1).trim());
    }
  } else {
    for (const [name, weight] of Object.entries(input)) add(name, weight);
  }

  if (issues.length === 0 && ![...given.values()].some((w) => w > 0)) {
    issues.push({ path: [], message: `at least one scorer needs a positive weight (scorers: ${SCORER_NAMES.join(', ')})` });
  }
  const weights: Partial<Record<ScorerName, number>> = {};
  for (const name of SCORER_NAMES) {
    const weight = given.get(name);
    if (weight !== undefined) weights[name] = weight;
  }
  return { weights: Object.freeze(weights), issues };
}

/**
 * Scorer weights as config gives them: a string `"prefix-affinity:3,queue-depth:2"` (an
 * environment variable, a CLI flag) or an object `{ "prefix-affinity": 3, ... }` (YAML). Names
 * must be scorers (SCORER_NAMES), weights non-negative finite numbers, at least one positive.
 */
export const ScorerWeightsSchema = z.union([z.string(), z.record(z.string(), z.unknown())]).transform((input, ctx) => {
  const { weights, issues } = readScorerWeights(input);
  for (const { path, message } of issues) ctx.addIssue({ code: 'custom', path, message, input });
  return issues.length > 0 ? z.NEVER : weights;
});

/** Reads weights in either form, or throws a ScorerWeightsError naming each problem. */
export function parseScorerWeights(input: string | Readonly<Record<string, unknown>>): ScorerWeights {
  const { weights, issues } = readScorerWeights(input);
  if (issues.length > 0) throw new ScorerWeightsError(issues.map(formatFieldIssue));
  return weights;
}
