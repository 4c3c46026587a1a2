import { z } from 'zod';
import { OutcomeReasonSchema } from './outcomes.js';

/** An instance's identity: it belongs to a worker and has a data-parallel rank. */
export const InstanceIdentitySchema = z.object({
  instanceId: z.string().min(1),
  workerId: z.string().min(1),
  rank: z.number().int().nonnegative(),
  model: z.string().min(1),
  totalKvBlocks: z.number().int().positive(),
});
export type InstanceIdentity = z.infer<typeof InstanceIdentitySchema>;

export const LifecycleEventSchema = InstanceIdentitySchema.extend({
  type: z.enum(['register', 'heartbeat', 'drain', 'deregister']),
  atMs: z.number(),
});
export type LifecycleEvent = z.infer<typeof LifecycleEventSchema>;

/** What an instance reports about its load (BEHAVIOUR.md §1, "What an instance reports"). */
export const LoadSnapshotSchema = z.object({
  instanceId: z.string().min(1),
  workerId: z.string().min(1),
  atMs: z.number(),
  queueDepth: z.number().int().nonnegative(),
  batchSize: z.number().int().nonnegative(),
  inFlight: z.number().int().nonnegative(),
  kvUtilization: z.number().min(0).max(1),
  freeKvBlocks: z.number().int().nonnegative(),
  totalKvBlocks: z.number().int().positive(),
  activePrefillTokens: z.number().int().nonnegative(),
  activeDecodeBlocks: z.number().int().nonnegative(),
  cacheHitRate: z.number().min(0).max(1),
  preemptions: z.number().int().nonnegative(),
});
export type LoadSnapshot = z.infer<typeof LoadSnapshotSchema>;

/** A request left an instance: completed, dropped or failed (router and flow-control accounting). */
export const RequestDoneSchema = z.object({
  requestId: z.string().min(1),
  instanceId: z.string().min(1),
  reason: OutcomeReasonSchema,
  atMs: z.number(),
});
export type RequestDone = z.infer<typeof RequestDoneSchema>;
