import { z } from 'zod';
import { describeZodError } from '@sluice/contracts';
import type { Param } from './parameter.js';
import type { ConstraintBound } from './study.js';
import type { Direction } from './tpe/ranking.js';

/*
 * The space file of `sluice tune` (examples/tune/*.yaml): what to run (a base config and a
 * workload), what to vary (config keys by their dotted path, as `--key.path=value` flags name
 * them), what to optimise and under which constraints, and the budget. camelCase like sluice.yaml.
 * Strict: an unknown key is an error naming its path, as in every sluice document.
 */

/** A config key as `--key.path=value` takes it (libs/config/src/command-line.ts's CONFIG_KEY). */
const CONFIG_KEY = /^[A-Za-z][\w-]*(\.[A-Za-z0-9_-]+)+$/;
/** A path into the run report's summary: `throughput.requestsPerSec`, `overall.ttft.p99`. */
const METRIC_PATH = /^[A-Za-z_][\w-]*(\.[\w-]+)*$/;

/** A refinement of a record keyed by config keys: each key not shaped like one is an issue at that key. */
function configKeys(example: string) {
  return (record: Record<string, unknown>, ctx: z.RefinementCtx) => {
    for (const key of Object.keys(record)) {
      if (!CONFIG_KEY.test(key)) ctx.addIssue({ code: 'custom', path: [key], message: `must be a dotted config key, e.g. ${example}` });
    }
  };
}

const MetricPath = z.string().regex(METRIC_PATH, 'must be a dotted path into the report summary, e.g. overall.ttft.p99');

/** Which part of the summary a metric path is read in: the whole run, one SLO class or one tenant. */
const MetricScope = {
  /** Read the path in `bySloClass.<class>` (e.g. ttft.p99 of critical). */
  sloClass: z.string().min(1).optional(),
  /** Read the path in `byFairnessId.<tenant>`. */
  tenant: z.string().min(1).optional(),
};

const RangeSchema = z
  .strictObject({
    min: z.number(),
    max: z.number(),
    /** Searched uniformly in the logarithm (for a scale: a step time, a budget). */
    log: z.boolean().default(false),
    /** Whole numbers only. */
    int: z.boolean().default(false),
  })
  .superRefine((r, ctx) => {
    if (!(r.max > r.min)) ctx.addIssue({ code: 'custom', path: ['max'], message: `must be greater than min (${r.min})` });
    if (r.log && !(r.min > 0)) ctx.addIssue({ code: 'custom', path: ['min'], message: 'must be > 0 on a log scale' });
    if (r.int && !(Number.isInteger(r.min) && Number.isInteger(r.max))) ctx.addIssue({ code: 'custom', path: ['min'], message: 'min and max must be whole numbers with int: true' });
    if (r.int && r.log && r.min < 1) ctx.addIssue({ code: 'custom', path: ['min'], message: 'must be ≥ 1 for a whole number on a log scale' });
  });

const ChoicesSchema = z.strictObject({
  choices: z
    .array(z.union([z.string(), z.number(), z.boolean()]))
    .min(2, 'list at least two choices')
    .refine((c) => new Set(c).size === c.length, 'a choice is listed twice'),
});

const ParameterSchema = z.union([RangeSchema, ChoicesSchema], { error: 'must be a range {min, max, log?, int?} or {choices: [...]}' });

const ObjectiveSchema = z
  .strictObject({ maximize: MetricPath.optional(), minimize: MetricPath.optional(), ...MetricScope })
  .superRefine((o, ctx) => {
    if ((o.maximize === undefined) === (o.minimize === undefined)) ctx.addIssue({ code: 'custom', path: [], message: 'give exactly one of maximize: PATH or minimize: PATH' });
    if (o.sloClass !== undefined && o.tenant !== undefined) ctx.addIssue({ code: 'custom', path: ['tenant'], message: 'give sloClass or tenant, not both' });
  });

const ConstraintSchema = z
  .strictObject({ metric: MetricPath, ...MetricScope, max: z.number().optional(), min: z.number().optional() })
  .superRefine((c, ctx) => {
    if (c.max === undefined && c.min === undefined) ctx.addIssue({ code: 'custom', path: [], message: 'give max (metric ≤ max) or min (metric ≥ min), or both' });
    if (c.max !== undefined && c.min !== undefined && c.min > c.max) ctx.addIssue({ code: 'custom', path: ['min'], message: `must be ≤ max (${c.max})` });
    if (c.sloClass !== undefined && c.tenant !== undefined) ctx.addIssue({ code: 'custom', path: ['tenant'], message: 'give sloClass or tenant, not both' });
  });

export const SpaceSchema = z
  .strictObject({
    version: z.literal(1).default(1),
    /** The config every trial starts from: a sluice.yaml (relative to the space file) and keys set on top. */
    base: z
      .strictObject({
        config: z.string().min(1).optional(),
        /** Config keys by dotted path, e.g. `worker.instances: 4`, applied after the file. */
        set: z.record(z.string(), z.unknown()).default({}).superRefine(configKeys('worker.instances')),
      })
      .prefault({}),
    /** The workload spec or TraceV2 trace every trial runs (relative to the space file). */
    workload: z.string().min(1),
    /** The searched config keys by dotted path, each a range or a list of choices. */
    parameters: z
      .record(z.string(), ParameterSchema)
      .superRefine(configKeys('admission.policies.slo-predictive.headroom'))
      .refine((p) => Object.keys(p).length > 0, 'list at least one parameter'),
    /** One objective, or two (then the Pareto front is between them). */
    objective: z.union([ObjectiveSchema, z.array(ObjectiveSchema).min(1).max(2, 'at most two objectives')]),
    constraints: z.array(ConstraintSchema).default([]),
    /** Trials in all (the twin runs the search makes). */
    trials: z.number().int().min(1).max(10_000).default(40),
    /**
     * Trials proposed together, then run in parallel. The batch, not the thread count, decides
     * which points are tried, so results are the same at any parallelism.
     */
    batchSize: z.number().int().min(1).max(256).default(4),
    /** Random trials before TPE's model takes over (Optuna's n_startup_trials). */
    startupTrials: z.number().int().min(1).default(10),
    /** tpe, or random search (a baseline to compare with). */
    sampler: z.enum(['tpe', 'random']).default('tpe'),
    /**
     * Run every trial once per workload seed (a spec's `seed` replaced) and judge it on the mean of
     * each metric: a setting is then chosen for the workload, not for one sample of its arrivals.
     * Default: the workload as it is, once.
     */
    workloadSeeds: z
      .array(z.number().int().nonnegative().max(0xffffffff))
      .min(1)
      .max(32)
      .refine((seeds) => new Set(seeds).size === seeds.length, 'a seed is listed twice')
      .optional(),
    /** Seeds the proposals and every twin run (one seed for all trials: they differ only by their settings). */
    seed: z.number().int().nonnegative().default(0),
    /** Worker threads running trials; default: the machine's available cores. */
    parallelism: z.number().int().min(1).max(256).optional(),
    /** How many of the best trials `--live` confirms against a real cluster. */
    confirm: z.number().int().min(1).max(50).default(3),
  })
  .superRefine((s, ctx) => {
    for (const key of Object.keys(s.parameters)) {
      if (key in s.base.set) ctx.addIssue({ code: 'custom', path: ['parameters', key], message: 'is also set in base.set: a searched key cannot be fixed too' });
    }
  });

export type SpaceFile = z.infer<typeof SpaceSchema>;

/** A metric: a path into the summary, read in the whole run, one SLO class or one tenant. */
export interface MetricRef {
  readonly path: string;
  readonly sloClass?: string;
  readonly tenant?: string;
}

export interface Objective extends MetricRef {
  readonly direction: Direction;
}

export interface Constraint extends MetricRef, ConstraintBound {}

/** A space file read and checked: the parts the search needs, in the file's order. */
export interface Space {
  readonly file: SpaceFile;
  readonly params: readonly Param[];
  readonly objectives: readonly Objective[];
  readonly constraints: readonly Constraint[];
}

/** A space file failed its schema; `problems` name each key path. */
export class SpaceError extends Error {
  override readonly name = 'SpaceError';
  constructor(
    readonly problems: readonly string[],
    options?: { cause?: unknown },
  ) {
    super(`invalid tune space: ${problems.join('; ')}`, options);
  }
}

/** Checks a parsed space document (YAML already read) and returns the space, or throws SpaceError. */
export function parseSpace(doc: unknown): Space {
  const result = SpaceSchema.safeParse(doc);
  if (!result.success) throw new SpaceError(describeZodError(result.error, { input: doc }));
  const file = result.data;
  const params: Param[] = Object.entries(file.parameters).map(([path, p]) =>
    'choices' in p ? { kind: 'choice', path, choices: p.choices } : { kind: 'range', path, min: p.min, max: p.max, log: p.log, int: p.int },
  );
  const scope = (o: { sloClass?: string | undefined; tenant?: string | undefined }) => ({
    ...(o.sloClass === undefined ? {} : { sloClass: o.sloClass }),
    ...(o.tenant === undefined ? {} : { tenant: o.tenant }),
  });
  const objectives: Objective[] = (Array.isArray(file.objective) ? file.objective : [file.objective]).map((o) => ({
    path: (o.maximize ?? o.minimize)!,
    direction: o.maximize === undefined ? 'minimize' : 'maximize',
    ...scope(o),
  }));
  const constraints: Constraint[] = file.constraints.map((c) => ({
    path: c.metric,
    ...scope(c),
    ...(c.max === undefined ? {} : { max: c.max }),
    ...(c.min === undefined ? {} : { min: c.min }),
  }));
  return { file, params, objectives, constraints };
}
