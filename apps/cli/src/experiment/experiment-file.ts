import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { describeZodError } from '@sluice/contracts';

/**
 * An experiment (`examples/experiments/<name>/experiment.yaml`): a hypothesis, the arms that test
 * it (the same workload under configs that differ in what the hypothesis is about), the claims
 * that decide it, and the figures it gave when it was last recorded. docs/experiments.md says how
 * to write one and read its report.
 */

/** A fragment of sluice.yaml: nested keys, as in the file (flattened into `--key.path=value` flags). */
const ConfigFragmentSchema = z.record(z.string(), z.unknown());

const OPS = ['>', '>=', '<', '<=', 'within'] as const;
export type ClaimOp = (typeof OPS)[number];

export const ClaimSchema = z
  .strictObject({
    /** What the claim says, in words (the verdict prints it). */
    says: z.string().min(1),
    /** A path into the arm's report summary, e.g. `overall.completed`, `bySloClass.critical.ttft.p99`. */
    metric: z.string().min(1),
    arm: z.string().min(1),
    /** Another arm to compare with; without it the claim compares with `value`. */
    vs: z.string().min(1).optional(),
    /** How the arm's figure compares: with `vs`, against `ratio` × the other arm's figure (default 1). */
    op: z.enum(OPS),
    ratio: z.number().positive().optional(),
    value: z.number().optional(),
    /** For `within`: the largest relative difference, e.g. 0.1 = ±10%. */
    tolerance: z.number().nonnegative().optional(),
  })
  .superRefine((c, ctx) => {
    if ((c.vs === undefined) === (c.value === undefined)) ctx.addIssue({ code: 'custom', path: ['vs'], message: 'give vs (another arm) or value, one of them' });
    if (c.value !== undefined && c.ratio !== undefined) ctx.addIssue({ code: 'custom', path: ['ratio'], message: 'goes with vs, not value' });
    if (c.op === 'within' && c.tolerance === undefined) ctx.addIssue({ code: 'custom', path: ['tolerance'], message: "is required with op 'within'" });
    if (c.op !== 'within' && c.tolerance !== undefined) ctx.addIssue({ code: 'custom', path: ['tolerance'], message: "goes with op 'within'" });
  });
export type Claim = z.infer<typeof ClaimSchema>;

const ArmSchema = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'must be lower-case letters, digits and dashes'),
  /** What this arm is, in words. */
  about: z.string().min(1),
  config: ConfigFragmentSchema.default(() => ({})),
});
export type Arm = z.infer<typeof ArmSchema>;

/** A recorded claim: the two figures and whether it held. */
const RecordedClaimSchema = z.strictObject({ left: z.number().nullable(), right: z.number().nullable(), holds: z.boolean() });
const RecordedRunSchema = z.strictObject({ verdict: z.enum(['confirmed', 'refuted', 'partly confirmed']), claims: z.array(RecordedClaimSchema) });

export const ExperimentSchema = z
  .strictObject({
    name: z.string().min(1),
    hypothesis: z.string().min(1),
    /** Where the hypothesis comes from, cited. */
    source: z.string().min(1),
    /** The workload spec or trace, relative to this file. */
    workload: z.string().min(1),
    /** Config every arm shares (the cluster: instances, profile, routing …). */
    cluster: ConfigFragmentSchema.default(() => ({})),
    /** Config the live runs add (e.g. a faster worker.timeScale is not modelled by the twin, so it is not used). */
    live: ConfigFragmentSchema.default(() => ({})),
    /** The arm the others are measured against. */
    control: z.string().min(1),
    arms: z.array(ArmSchema).min(2, 'an experiment needs a control and at least one other arm'),
    claims: z.array(ClaimSchema).min(1),
    /** The figures of the last recorded runs (`sluice experiment --record`): the twin's are kept true by a test. */
    recorded: z.strictObject({ twin: RecordedRunSchema.optional(), live: RecordedRunSchema.optional() }).default(() => ({})),
  })
  .superRefine((e, ctx) => {
    const names = new Set<string>();
    e.arms.forEach((arm, i) => {
      if (names.has(arm.name)) ctx.addIssue({ code: 'custom', path: ['arms', i, 'name'], message: `duplicate arm '${arm.name}'` });
      names.add(arm.name);
    });
    if (!names.has(e.control)) ctx.addIssue({ code: 'custom', path: ['control'], message: `names no arm (arms: ${[...names].join(', ')})` });
    e.claims.forEach((c, i) => {
      if (!names.has(c.arm)) ctx.addIssue({ code: 'custom', path: ['claims', i, 'arm'], message: `names no arm (arms: ${[...names].join(', ')})` });
      if (c.vs !== undefined && !names.has(c.vs)) ctx.addIssue({ code: 'custom', path: ['claims', i, 'vs'], message: `names no arm (arms: ${[...names].join(', ')})` });
    });
  });
export type Experiment = z.infer<typeof ExperimentSchema>;

export class ExperimentFileError extends Error {
  constructor(
    readonly file: string,
    readonly problems: readonly string[],
  ) {
    super(`${file}: ${problems.join('; ')}`);
    this.name = 'ExperimentFileError';
  }
}

/** Reads and validates an experiment; `workloadFile` is resolved against the file's folder. */
export function loadExperiment(file: string): { readonly experiment: Experiment; readonly workloadFile: string; readonly text: string } {
  let text: string;
  let tree: unknown;
  try {
    text = readFileSync(file, 'utf8');
    tree = parseYaml(text);
  } catch (error) {
    throw new ExperimentFileError(file, [(error as Error).message]);
  }
  const parsed = ExperimentSchema.safeParse(tree);
  if (!parsed.success) throw new ExperimentFileError(file, describeZodError(parsed.error));
  return { experiment: parsed.data, workloadFile: resolve(dirname(file), parsed.data.workload), text };
}

/**
 * A config fragment as the `--key.path=value` flags every sluice process reads: one flag per leaf,
 * a list as one JSON (YAML flow) value.
 */
export function configFlags(fragment: Readonly<Record<string, unknown>>, prefix: readonly string[] = []): string[] {
  const flags: string[] = [];
  for (const [key, value] of Object.entries(fragment)) {
    const path = [...prefix, key];
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) flags.push(...configFlags(value as Record<string, unknown>, path));
    else flags.push(`--${path.join('.')}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  }
  return flags;
}
