import { z } from 'zod';
import { BlockIdSchema } from './block-hashes.js';
import { WorkerRoleSchema } from './disaggregation.js';
import { OutcomeReasonSchema } from './outcomes.js';
import { MicrosSchema } from './time.js';
import { IdSchema, MAX_KV_BLOCKS, MAX_KV_EVENT_BLOCKS, MAX_RANK, NameSchema, SubjectIdSchema } from './wire-limits.js';

const KvBlocks = z.number().int().nonnegative().max(MAX_KV_BLOCKS);
const Rank = z.number().int().nonnegative().max(MAX_RANK);

/** An instance's identity: it belongs to a worker and has a data-parallel rank. */
export const InstanceIdentitySchema = z.object({
  /** The router builds the instance's submit subject from it: a subject token. */
  instanceId: SubjectIdSchema,
  workerId: IdSchema,
  rank: Rank,
  model: NameSchema,
  totalKvBlocks: KvBlocks.min(1),
  /** Absent from an aggregated instance, read as `both`: older workers keep registering unchanged. */
  role: WorkerRoleSchema.optional(),
});
export type InstanceIdentity = z.infer<typeof InstanceIdentitySchema>;

export const LifecycleEventSchema = InstanceIdentitySchema.extend({
  type: z.enum(['register', 'heartbeat', 'drain', 'deregister']),
  /** When the instance sent it: epoch µs. */
  atUs: MicrosSchema,
});
export type LifecycleEvent = z.infer<typeof LifecycleEventSchema>;

/** What an instance reports about its load (docs/behaviour.md §1, "What an instance reports"). */
export const LoadSnapshotSchema = z.object({
  instanceId: SubjectIdSchema,
  workerId: IdSchema,
  /** Data-parallel rank within the worker (busy-threshold groups ranks by worker). */
  rank: Rank,
  /** When the instance took it: epoch µs (readers judge its age by this). */
  atUs: MicrosSchema,
  queueDepth: z.number().int().nonnegative(),
  batchSize: z.number().int().nonnegative(),
  inFlight: z.number().int().nonnegative(),
  kvUtilization: z.number().min(0).max(1),
  freeKvBlocks: KvBlocks,
  totalKvBlocks: KvBlocks.min(1),
  activePrefillTokens: z.number().int().nonnegative(),
  activeDecodeBlocks: z.number().int().nonnegative(),
  cacheHitRate: z.number().min(0).max(1),
  preemptions: z.number().int().nonnegative(),
});
export type LoadSnapshot = z.infer<typeof LoadSnapshotSchema>;

/**
 * An instance that publishes snapshots on every change (loadIntervalMs = 0) still publishes one
 * at least this often, so a reader that judges snapshots by their age (the utilization
 * detector's staleness threshold) can tell an idle instance from a silent one.
 */
export const IDLE_SNAPSHOT_REFRESH_MS = 100;

/** A request left an instance: completed, dropped or failed (router and flow-control accounting). */
export const RequestDoneSchema = z.object({
  requestId: IdSchema,
  instanceId: SubjectIdSchema,
  reason: OutcomeReasonSchema,
  /** When the request left the instance: epoch µs. */
  atUs: MicrosSchema,
  /**
   * A prefill instance is done with its part of a disaggregated request (its prompt); the request
   * itself goes on on its decode instance. Only the router's count of that instance reads it.
   */
  prefillOnly: z.literal(true).optional(),
});
export type RequestDone = z.infer<typeof RequestDoneSchema>;

/**
 * KV cache events for prefix-aware routing: full prompt blocks that became cached or stopped being
 * cached on one instance, batched per engine step.
 */
export const KvEventSchema = z.object({
  instanceId: SubjectIdSchema,
  /** The start of the engine step that stored / removed the blocks: epoch µs. */
  atUs: MicrosSchema,
  stored: z.array(BlockIdSchema).max(MAX_KV_EVENT_BLOCKS),
  removed: z.array(BlockIdSchema).max(MAX_KV_EVENT_BLOCKS),
  /**
   * Every block the instance held before this event is gone (vLLM's `AllBlocksCleared`): an
   * instance starting with an empty cache says so, so a reader drops what it believed of an
   * earlier life under the same id. Applied before `removed` and `stored`.
   */
  cleared: z.literal(true).optional(),
});
export type KvEvent = z.infer<typeof KvEventSchema>;

/** Failures a worker instance can be told to inject (llm-d-inference-sim's failure types). */
export const InjectedFailureSchema = z.enum(['rate_limit', 'server_error', 'invalid_request']);
export type InjectedFailure = z.infer<typeof InjectedFailureSchema>;

/** The knobs' ranges, without defaults: a change names only what it changes. */
const FAULT_KNOBS = {
  /** Every modelled duration is multiplied by this (1 = as modelled; 2 = a GPU at half speed). */
  slowdown: z.number().min(0.01).max(1000),
  /** Probability that an accepted request fails at once with one of `failureTypes`. */
  failureRate: z.number().min(0).max(1),
  failureTypes: z.array(InjectedFailureSchema).min(1),
  /** Accept requests and never finish them (they end at the gateway's deadline). */
  hang: z.boolean(),
};

/** Run-time knobs of a worker instance, set on `control.worker.set-faults` (chaos runs). */
export const WorkerFaultsSchema = z.strictObject({
  slowdown: FAULT_KNOBS.slowdown.default(1),
  failureRate: FAULT_KNOBS.failureRate.default(0),
  failureTypes: FAULT_KNOBS.failureTypes.default(['server_error']),
  hang: FAULT_KNOBS.hang.default(false),
});
export type WorkerFaults = z.infer<typeof WorkerFaultsSchema>;

export const SetWorkerFaultsSchema = z.strictObject({
  /** One instance, or every instance of the worker processes that receive it when omitted. */
  instanceId: z.string().min(1).optional(),
  /**
   * Only the knobs to change; the others keep their values. (Not `WorkerFaultsSchema.partial()`:
   * zod 4 would fill the omitted knobs with their defaults and so reset them.)
   */
  faults: z.strictObject(FAULT_KNOBS).partial(),
});
export type SetWorkerFaults = z.infer<typeof SetWorkerFaultsSchema>;

/**
 * autoscaler → every worker process (`control.worker.set-instances`): worker `workerId` should run
 * `instances` of its instances; the others ignore it. It answers with its counts after the change.
 */
export const SetWorkerInstancesSchema = z.strictObject({
  workerId: IdSchema,
  instances: z.number().int().nonnegative().max(256),
});
export type SetWorkerInstances = z.infer<typeof SetWorkerInstancesSchema>;

/** A worker's answer to `set-instances`: its instances by state after the change. */
export const WorkerInstanceCountsSchema = z.strictObject({
  workerId: IdSchema,
  active: z.number().int().nonnegative(),
  starting: z.number().int().nonnegative(),
  ready: z.number().int().nonnegative(),
  draining: z.number().int().nonnegative(),
});
export type WorkerInstanceCounts = z.infer<typeof WorkerInstanceCountsSchema>;
