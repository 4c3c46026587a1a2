import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { SLO_TTFT_MS_MAX, formatFieldIssue, zodFieldIssues, type FieldIssue } from '@sluice/contracts';
import { DiurnalSchema } from './rate-shape/diurnal.js';
import { StageSchema, stagesDuration, stagesMeanRate, type Stage } from './rate-shape/stages.js';

/**
 * A workload spec, compatible with the parts of BLIS's workload spec v2 that apply here: a seed,
 * an aggregate rate shared by clients, and per client an arrival process and token-length
 * distributions. Snake_case keys as in BLIS. Parsing is pure: the caller reads the file.
 */

const positive = () => z.number().finite().positive('must be > 0');
const nonNegative = () => z.number().finite().nonnegative('must be >= 0');

export const SLO_CLASSES = ['critical', 'standard', 'batch', 'sheddable', 'background'] as const;
export type SloClass = (typeof SLO_CLASSES)[number];

/**
 * A request's latency targets in ms (snake_case here, `SloTargets` in the code): at least one.
 * ttft_ms travels as `x-slo-ttft-ms`, which the gateway reads to the µs and bounds by
 * SLO_TTFT_MS_MAX; tpot_ms is the mean gap after the first token (BLIS's goodput `itl_ms`).
 */
export const SloTargetsSchema = z
  .strictObject({
    ttft_ms: z.number().finite().min(0.001, 'must be >= 0.001 (1 µs, what the gateway reads)').max(SLO_TTFT_MS_MAX, `must be <= ${SLO_TTFT_MS_MAX} (x-slo-ttft-ms's bound)`).optional(),
    tpot_ms: positive().optional(),
    e2e_ms: positive().optional(),
  })
  .refine((t) => t.ttft_ms !== undefined || t.tpot_ms !== undefined || t.e2e_ms !== undefined, { message: 'must set ttft_ms, tpot_ms or e2e_ms' });
export type SloTargetsSpec = z.infer<typeof SloTargetsSchema>;

export const ArrivalSchema = z.discriminatedUnion('process', [
  /** Exponential inter-arrival times (cv = 1). */
  z.strictObject({ process: z.literal('poisson') }),
  /** Gamma inter-arrival times with the given coefficient of variation (cv > 1 is burstier than Poisson). */
  z.strictObject({ process: z.literal('gamma'), cv: positive() }),
  /** Weibull inter-arrival times with the given coefficient of variation (shape solved numerically). */
  z.strictObject({ process: z.literal('weibull'), cv: positive() }),
  /** Evenly spaced arrivals, 1/rate apart. */
  z.strictObject({ process: z.literal('constant') }),
]);
export type Arrival = z.infer<typeof ArrivalSchema>;

export const LengthDistributionSchema = z.discriminatedUnion('type', [
  /** Normal, rounded, then clamped to [min, max] (defaults: 1 and unbounded). */
  z.strictObject({
    type: z.literal('gaussian'),
    params: z
      .strictObject({ mean: z.number().finite(), std_dev: nonNegative(), min: nonNegative().optional(), max: positive().optional() })
      .refine((p) => p.min === undefined || p.max === undefined || p.min <= p.max, { message: 'must be >= min', path: ['max'] }),
  }),
  /** Exponential with the given mean. */
  z.strictObject({ type: z.literal('exponential'), params: z.strictObject({ mean: positive() }) }),
  /** exp(N(mu, sigma²)): mu and sigma are of the underlying normal, as in BLIS (median = e^mu). */
  z.strictObject({ type: z.literal('lognormal'), params: z.strictObject({ mu: z.number().finite(), sigma: nonNegative() }) }),
  /** Always `value`. */
  z.strictObject({ type: z.literal('constant'), params: z.strictObject({ value: positive() }) }),
  /** One of `values`, with probability proportional to `weights` (uniform when absent). */
  z.strictObject({
    type: z.literal('empirical'),
    params: z
      .strictObject({ values: z.array(positive()).min(1, 'must not be empty'), weights: z.array(nonNegative()).optional() })
      .superRefine((p, ctx) => {
        if (p.weights === undefined) return;
        if (p.weights.length !== p.values.length)
          ctx.addIssue({ code: 'custom', path: ['weights'], message: `must have as many entries as values (${p.values.length})` });
        else if (!p.weights.some((w) => w > 0)) ctx.addIssue({ code: 'custom', path: ['weights'], message: 'must not all be 0' });
      }),
  }),
]);
export type LengthDistribution = z.infer<typeof LengthDistributionSchema>;

export const ClientSchema = z
  .strictObject({
    id: z.string().min(1, 'must not be empty'),
    tenant_id: z.string().min(1, 'must not be empty'),
    slo_class: z.enum(SLO_CLASSES),
    /** This client's share of aggregate_rate, normalized over all clients. */
    rate_fraction: positive(),
    arrival: ArrivalSchema,
    /** Length of the unique (non-prefix) part of the prompt, in tokens. */
    input_distribution: LengthDistributionSchema,
    /** max_tokens of each request. */
    output_distribution: LengthDistributionSchema,
    /** Requests of one group share their first prefix_length token ids (a system prompt). */
    prefix_group: z.string().min(1, 'must not be empty').optional(),
    prefix_length: z.number().int('must be an integer').positive('must be > 0').optional(),
    /** This client's targets; each one set here wins over its class's in `slo_targets`. */
    slo: SloTargetsSchema.optional(),
  })
  .superRefine((c, ctx) => {
    if (c.prefix_group !== undefined && c.prefix_length === undefined)
      ctx.addIssue({ code: 'custom', path: ['prefix_length'], message: 'is required with prefix_group' });
    if (c.prefix_length !== undefined && c.prefix_group === undefined)
      ctx.addIssue({ code: 'custom', path: ['prefix_group'], message: 'is required with prefix_length' });
  });
export type ClientSpec = z.infer<typeof ClientSchema>;

/** Relative slack when a given aggregate_rate is compared with the stages' mean (a parsed spec read back). */
const STAGES_MEAN_SLACK = 1e-9;

export const WorkloadSpecSchema = z
  .strictObject({
    /** BLIS writes `version: "2"`; accepted and ignored. */
    version: z.union([z.string(), z.number()]).optional(),
    seed: z.number().int('must be an integer').nonnegative('must be >= 0').max(0xffffffff, 'must fit in 32 bits'),
    /**
     * Requests per second over all clients; with `diurnal`, the mean the cycle swings around. With
     * `stages` it is left out: the parsed spec carries the stages' time-weighted mean, and a value
     * given must be that mean.
     */
    aggregate_rate: positive().optional(),
    num_requests: z.number().int('must be an integer').positive('must be > 0').optional(),
    /**
     * Seconds of arrivals; generation stops at num_requests or horizon, whichever comes first. With
     * `stages`, at most their total duration, which it defaults to.
     */
    horizon: positive().optional(),
    /** Load stages (rate-shape/stages.ts): each `rate` requests/s for `duration` seconds, in turn. */
    stages: z.array(StageSchema).min(1, 'must not be empty').optional(),
    /** A cycle around aggregate_rate (rate-shape/diurnal.ts): period, peak_to_trough_ratio, peak_at. */
    diurnal: DiurnalSchema.optional(),
    clients: z.array(ClientSchema).min(1, 'must not be empty'),
    /**
     * Targets per SLO class, as BLIS's `goodput_slo_targets` (keyed by class, one target per
     * dimension; sluice names BLIS's per-request `itl_ms` `tpot_ms`): every client of the class
     * has them, a client's own `slo` overriding them dimension by dimension.
     */
    slo_targets: z.partialRecord(z.enum(SLO_CLASSES), SloTargetsSchema).optional(),
  })
  .superRefine((s, ctx) => {
    if (s.stages === undefined) {
      if (s.aggregate_rate === undefined) ctx.addIssue({ code: 'custom', path: ['aggregate_rate'], message: 'is required (without stages)' });
      if (s.num_requests === undefined && s.horizon === undefined)
        ctx.addIssue({ code: 'custom', path: ['num_requests'], message: 'num_requests or horizon is required' });
    } else refineStages(s.stages, s, ctx);
    const ids = new Set<string>();
    const prefixLengths = new Map<string, number>();
    s.clients.forEach((c, i) => {
      if (ids.has(c.id)) ctx.addIssue({ code: 'custom', path: ['clients', i, 'id'], message: `duplicate client id '${c.id}'` });
      ids.add(c.id);
      if (c.prefix_group === undefined || c.prefix_length === undefined) return;
      const known = prefixLengths.get(c.prefix_group);
      if (known !== undefined && known !== c.prefix_length)
        ctx.addIssue({ code: 'custom', path: ['clients', i, 'prefix_length'], message: `must equal ${known}, the length of prefix_group '${c.prefix_group}'` });
      else prefixLengths.set(c.prefix_group, c.prefix_length);
    });
  })
  // With stages, the spec as parsed says what they imply: the rate the generator draws at (their
  // mean) and the horizon (their end), so a reader of aggregate_rate × horizon is right.
  .transform((s) =>
    s.stages === undefined ? { ...s, aggregate_rate: s.aggregate_rate! } : { ...s, aggregate_rate: stagesMeanRate(s.stages), horizon: s.horizon ?? stagesDuration(s.stages) },
  );

/** A workload has one rate shape; the stages give the rate and bound the horizon. */
function refineStages(stages: readonly Stage[], s: { aggregate_rate?: number | undefined; horizon?: number | undefined; diurnal?: unknown }, ctx: z.RefinementCtx): void {
  if (s.diurnal !== undefined) ctx.addIssue({ code: 'custom', path: ['diurnal'], message: 'cannot be set with stages: a workload has one rate shape' });
  if (stages.length === 0) return; // `must not be empty` says it
  if (!stages.some((stage) => stage.rate > 0)) {
    ctx.addIssue({ code: 'custom', path: ['stages'], message: 'must have a stage with rate > 0' });
    return;
  }
  const mean = stagesMeanRate(stages);
  if (s.aggregate_rate !== undefined && Math.abs(s.aggregate_rate - mean) > STAGES_MEAN_SLACK * mean)
    ctx.addIssue({ code: 'custom', path: ['aggregate_rate'], message: `must be absent with stages (each stage gives its rate), or equal their time-weighted mean ${mean}` });
  const total = stagesDuration(stages);
  if (s.horizon !== undefined && s.horizon > total)
    ctx.addIssue({ code: 'custom', path: ['horizon'], message: `must be <= ${total}, the stages' total duration (no rate is given past the last stage)` });
}

export type WorkloadSpec = z.infer<typeof WorkloadSpecSchema>;
export type WorkloadSpecInput = z.input<typeof WorkloadSpecSchema>;

/** A spec's `slo_targets` as a TraceV2 header's goodput_slo_targets (TPOT is BLIS's `itl_ms`); undefined without any. */
export function goodputSloTargetsOf(spec: WorkloadSpec): Record<string, { ttft_ms?: number; itl_ms?: number; e2e_ms?: number }> | undefined {
  const entries = Object.entries(spec.slo_targets ?? {}).filter((e): e is [string, SloTargetsSpec] => e[1] !== undefined);
  if (entries.length === 0) return undefined;
  return Object.fromEntries(entries.map(([c, t]) => [c, { ...(t.ttft_ms === undefined ? {} : { ttft_ms: t.ttft_ms }), ...(t.tpot_ms === undefined ? {} : { itl_ms: t.tpot_ms }), ...(t.e2e_ms === undefined ? {} : { e2e_ms: t.e2e_ms }) }]));
}

/** One problem in a spec: where (`clients[1].arrival.cv`) and what (`must be > 0`). */
export type WorkloadIssue = FieldIssue;

/** A spec that does not parse or validate; `issues` lists every problem, each naming its key path. */
export class WorkloadError extends Error {
  constructor(readonly issues: readonly WorkloadIssue[]) {
    super(`invalid workload spec:\n${issues.map((i) => `  ${formatFieldIssue(i)}`).join('\n')}`);
    this.name = 'WorkloadError';
  }
}

/** Validates a parsed spec (e.g. from YAML or JSON); throws WorkloadError listing every problem. */
export function validateWorkloadSpec(input: unknown): WorkloadSpec {
  const result = WorkloadSpecSchema.safeParse(input);
  if (!result.success) throw new WorkloadError(zodFieldIssues(result.error, { input }));
  return result.data;
}

/** Parses and validates a YAML (or JSON) workload spec; throws WorkloadError on syntax or schema errors. */
export function parseWorkloadSpec(text: string): WorkloadSpec {
  let parsed: unknown;
  try {
    parsed = parseYaml(text) as unknown;
  } catch (error) {
    throw new WorkloadError([{ path: '', message: `not valid YAML: ${error instanceof Error ? error.message : String(error)}` }]);
  }
  return validateWorkloadSpec(parsed);
}
