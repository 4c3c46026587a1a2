import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { formatFieldIssue, zodFieldIssues, type FieldIssue } from '@sluice/contracts';
import { WorkloadSpecSchema } from '../spec.js';

/**
 * A chaos scenario (`sluice chaos SCENARIO.yaml`, `sluice simulate --chaos SCENARIO.yaml`): the
 * workload `sluice run` takes, the cluster it runs on, and a timeline of faults. Times are ms from
 * the first request. A fault with `forMs` is undone that long after it starts (a paused process is
 * continued, knobs and bus faults are cleared, NATS is started again).
 */

const Ms = z.number().int('must be a whole number of ms').nonnegative('must be >= 0');
const PositiveMs = z.number().int('must be a whole number of ms').positive('must be > 0');
const Percent = z.number().min(0, 'must be >= 0').max(100, 'must be <= 100');

/**
 * A process of the cluster: `gateway`, `admission`, `flow-controller`, `router`, or `worker-N`
 * (the N-th worker process, from 0; `worker` = worker-0). Under compose, the service's container.
 */
export const ProcessTargetSchema = z
  .string()
  .regex(/^(gateway|admission|flow-controller|router|worker(-[0-9]+)?)$/, 'must be gateway, admission, flow-controller, router, worker or worker-N');
export type ProcessTarget = z.infer<typeof ProcessTargetSchema>;

const At = { atMs: Ms, note: z.string().optional() };

/** `kill -9`: the process dies at once; `sluice up`'s supervisor restarts it with backoff. */
const KillFault = z.strictObject({ ...At, action: z.literal('kill'), target: ProcessTargetSchema });
/** SIGTERM: graceful shutdown (drain, hand back, finish), then the supervisor restarts it. */
const TerminateFault = z.strictObject({ ...At, action: z.literal('terminate'), target: ProcessTargetSchema });
/** SIGSTOP for `forMs`, then SIGCONT: a frozen process (a GC pause, a stuck node). Under compose: `docker pause`. */
const PauseFault = z.strictObject({ ...At, action: z.literal('pause'), target: ProcessTargetSchema, forMs: PositiveMs });
/** Under compose only: the container is disconnected from the network for `forMs`. */
const DisconnectFault = z.strictObject({ ...At, action: z.literal('disconnect'), target: ProcessTargetSchema, forMs: PositiveMs });
/** NATS stops and starts again `forMs` later, on the same address. */
const RestartNatsFault = z.strictObject({ ...At, action: z.literal('restart-nats'), forMs: PositiveMs });
/**
 * One node of a NATS cluster stops: for good (a lost node), or for `forMs` and then starts again
 * on its address. `node` is its index (nats-0 is the first; under compose the `nats` service, then
 * `nats-1`, …) or `busiest`: the node holding the most client connections when the fault fires,
 * the loss that moves the most services (clients pick a node at random, so a fixed index may hit
 * one nobody uses). Needs a NATS cluster: `nats.clusterSize: 3` in the scenario's cluster, or
 * docker-compose.nats-cluster.yml under compose.
 */
const StopNatsNodeFault = z.strictObject({
  ...At,
  action: z.literal('stop-nats-node'),
  node: z.union([z.number().int('must be a whole number').nonnegative('must be >= 0'), z.literal('busiest')], { error: 'must be a node index (0, 1, …) or busiest' }).default('busiest'),
  forMs: PositiveMs.optional(),
});
/**
 * Worker fault knobs (docs/behaviour.md §1): on one instance, on `instanceCount` of them, or on
 * all; reset to defaults after `forMs`. Instance ids are drawn when a worker starts, so a scenario
 * that means "one slow GPU" says `instanceCount: 1` (the first instances by id are taken).
 */
const WorkerFaultsFault = z.strictObject({
  ...At,
  action: z.literal('worker-faults'),
  instance: z.string().min(1).optional(),
  instanceCount: z.number().int('must be a whole number').positive('must be > 0').optional(),
  slowdown: z.number().min(0.01).max(1000).optional(),
  failureRate: z.number().min(0).max(1).optional(),
  hang: z.boolean().optional(),
  forMs: PositiveMs.optional(),
});
/** Bus faults on a subject pattern (NATS wildcards), as Envoy's fault filter: delay, drop, duplicate. */
const BusFaultsFault = z.strictObject({
  ...At,
  action: z.literal('bus-faults'),
  subject: z.string().min(1),
  delayMs: Ms.default(0),
  jitterMs: Ms.default(0),
  dropPercent: Percent.default(0),
  duplicatePercent: Percent.default(0),
  forMs: PositiveMs.optional(),
});

export const FaultSchema = z.discriminatedUnion('action', [
  KillFault,
  TerminateFault,
  PauseFault,
  DisconnectFault,
  RestartNatsFault,
  StopNatsNodeFault,
  WorkerFaultsFault.refine((f) => f.instance === undefined || f.instanceCount === undefined, { message: 'give instance or instanceCount, not both', path: ['instanceCount'] }),
  BusFaultsFault,
]);
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

// The library's index exports this module; the scenario's time-axis scaling lives beside it.
export { scaleFaults, scaleWorkloadSpec } from './scale.js';
