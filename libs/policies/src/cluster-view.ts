import type { BlockId, Micros } from '@sluice/contracts';
import type { AdmissionSignals } from './admission/admission-signals.js';

/**
 * What a policy sees of the cluster at one decision: one entry per live instance. Router-owned
 * signals (inFlight) are exact; instance-reported ones are as fresh as `snapshotAgeUs` says.
 */
export interface InstanceView {
  readonly instanceId: string;
  readonly workerId: string;
  readonly rank: number;
  readonly model: string;
  readonly totalKvBlocks: number;
  /** Router-owned: +1 at dispatch, −1 when the instance reports the request done. */
  readonly inFlight: number;
  readonly queueDepth: number;
  readonly batchSize: number;
  readonly kvUtilization: number;
  /** Prompt tokens still to prefill on the instance (busy-threshold's prefill signal). */
  readonly activePrefillTokens: number;
  /** KV blocks held by decoding requests (busy-threshold divides by totalKvBlocks). */
  readonly activeDecodeBlocks: number;
  /**
   * Age of the instance-reported signals; Infinity before the first snapshot. Read it during the
   * decision the view was built for: ClusterState keeps an instance's view object between views
   * and writes this field anew at each `view()`.
   */
  readonly snapshotAgeUs: Micros;
}

/**
 * How many leading prompt blocks of a request an instance already has cached, as the router-side
 * prefix index believes (docs/behaviour.md §4). An interface so policies need not know who keeps it.
 */
export interface PrefixLookup {
  matchedBlocks(instanceId: string, blockHashes: readonly BlockId[]): number;
  /**
   * Optional bulk form: every instance's leading-run length at once (instances without even the
   * first block are absent). Scorers use it when present, so one request costs the matches, not
   * one lookup per instance.
   */
  matchedBlocksByInstance?(blockHashes: readonly BlockId[]): ReadonlyMap<string, number>;
  /** Optional: how many blocks the instance holds in all (Dynamo's tree size, kv-router's tie-break). */
  blockCount?(instanceId: string): number;
}

export interface ClusterView {
  /**
   * Read it during the decision the view was built for: ClusterState hands the same array to
   * every view until an instance joins, leaves or drains, and puts a changed instance's new view
   * in its place at the next `view()`. Copy it (or the entries) to keep them past that.
   */
  readonly instances: readonly InstanceView[];
  /** Absent where no prefix index is kept: policies then assume no cached prefix. */
  readonly prefix?: PrefixLookup;
  /**
   * What the instances' caches reported holding, from their KV events (the router's KvEventIndex):
   * read by `precise-prefix-cache`. Absent where no KV events are followed.
   */
  readonly kvCache?: PrefixLookup;
  /** How old `kvCache`'s view is (time since its last refresh): the staleness a decision's span reports. */
  readonly kvCacheAgeUs?: number;
  /** Admission's own signals (its ledger, flow control's queue, the serving profile); absent in the router's view. */
  readonly admission?: AdmissionSignals;
}

/** The request as policies see it: no prompt text, only what decisions need. */
export interface PolicyRequest {
  readonly id: string;
  readonly model: string;
  readonly inputTokens: number;
  readonly maxTokens: number;
  readonly priority: number;
  readonly sloClass: string;
  readonly fairnessId: string;
  readonly blockHashes: readonly BlockId[];
}
