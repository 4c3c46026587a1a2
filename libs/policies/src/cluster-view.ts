/**
 * What a policy sees of the cluster at one decision: one entry per live instance. Router-owned
 * signals (inFlight) are exact; instance-reported ones are as fresh as `snapshotAgeMs` says.
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
  /** Age of the instance-reported signals; Infinity before the first snapshot. */
  readonly snapshotAgeMs: number;
}

export interface ClusterView {
  readonly instances: readonly InstanceView[];
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
  readonly blockHashes: readonly string[];
}
