import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { formatFieldIssue, zodFieldIssues, type FieldIssue } from '@sluice/contracts';
import { WorkloadSpecSchema } from '../spec.js';
import { BUILT_IN_FAULTS, faultSchemaOf } from './faults/built-in-faults.js';

/**
 * A chaos scenario (`sluice chaos SCENARIO.yaml`, `sluice simulate --chaos SCENARIO.yaml`): the
 * workload `sluice run` takes, the cluster it runs on, and a timeline of faults. Times are ms from
 * the first request. A fault with `forMs` is undone that long after it starts (a paused process is
 * continued, knobs and bus faults are cleared, NATS is started again). Each fault's schema lives
 * in its folder under faults/.
 */

/** One fault of a scenario: the union of the registered faults' schemas (faults/built-in-faults.ts). */
export const FaultSchema = faultSchemaOf(BUILT_IN_FAULTS);
export type Fault = z.infer<typeof FaultSchema>;
export type FaultAction = Fault['action'];

export const ChaosScenarioSchema = z.strictObject({
  name: z.string().min(1),
  /** What the scenario shows and what to expect (printed in the report). */
  description: z.string().default(''),
  /** Config of the local cluster the scenario starts, as `--key.path=value` flags, e.g. `worker.processes: 2`. */
  cluster: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).default({}),
  /** The workload, inline (the spec `sluice run` takes) or a file relative to the scenario. */
  workload: z.union([z.string().min(1), z.record(z.string(), z.unknown())]).transform((w, ctx) => {
    if (typeof w === 'string') return w;
    const spec = WorkloadSpecSchema.safeParse(w);
    if (spec.success) return spec.data;
    for (const issue of spec.error.issues) ctx.addIssue({ ...issue, code: 'custom', path: issue.path });
    return z.NEVER;
  }),
  /** Retries a client makes on 503 (backoff with jitter), as `sluice run --retries`. */
  retries: z.number().int().nonnegative().default(0),
  faults: z.array(FaultSchema).default([]),
  /** Tolerances: requests allowed to fail (by any reason), as a share of all requests. */
  expect: z.strictObject({ maxFailedShare: z.number().min(0).max(1).default(0) }).prefault({}),
});
export type ChaosScenario = z.infer<typeof ChaosScenarioSchema>;

export class ChaosScenarioError extends Error {
  constructor(readonly issues: readonly FieldIssue[]) {
    super(`invalid chaos scenario:\n${issues.map((i) => `  ${formatFieldIssue(i)}`).join('\n')}`);
    this.name = 'ChaosScenarioError';
  }
}

/** Parses and validates a scenario; throws ChaosScenarioError naming every problem's key path. */
export function parseChaosScenario(text: string): ChaosScenario {
  let raw: unknown;
  try {
    raw = parseYaml(text) as unknown;
  } catch (error) {
    throw new ChaosScenarioError([{ path: '', message: `not valid YAML: ${error instanceof Error ? error.message : String(error)}` }]);
  }
  const result = ChaosScenarioSchema.safeParse(raw);
  if (!result.success) throw new ChaosScenarioError(zodFieldIssues(result.error, { input: raw }));
  return result.data;
}

/** A fault's window: when it starts and, for faults that are undone, when it ends. */
export function faultWindow(fault: Fault): { readonly startMs: number; readonly endMs: number | undefined } {
  const forMs = 'forMs' in fault ? fault.forMs : undefined;
  return { startMs: fault.atMs, endMs: forMs === undefined ? undefined : fault.atMs + forMs };
}
