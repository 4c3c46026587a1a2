import { BLOCK_SIZE, IDLE_SNAPSHOT_REFRESH_MS, microsFromMillis, type Micros } from '@sluice/contracts';
import { KV_TRANSFER_PROFILES, kvBytesPerBlock, type EngineCompat, type InstanceSchedulerName, type KvTransferModel, type KvTransferProfileName, type LatencyModel, type WorkerRole } from '@sluice/engine';

/** The keys of the config's `worker` section the core reads (a parsed sluice.yaml fits). */
export interface WorkerConfig {
  readonly instances: number;
  /** Instances in the cluster at start (the first ranks); the rest wait parked for an autoscaler. Default: all. */
  readonly initialInstances?: number | undefined;
  /** Overrides the profile's model load (ms of model time). */
  readonly modelLoadMs?: number | undefined;
  /** The initial instances load their model too before they register (a pod a Kubernetes autoscaler created). */
  readonly loadModelAtStart?: boolean;
  /** Real ms a draining instance has to finish before it hands back what it holds. */
  readonly shutdownGraceMs?: number;
  readonly model: string;
  readonly scheduler: InstanceSchedulerName;
  readonly maxRunning: number;
  readonly maxBatchTokens: number;
  readonly kvBlocks?: number | undefined;
  readonly heartbeatIntervalMs: number;
  readonly loadIntervalMs: number;
  /** The engine clock runs this many times faster than real time (1 in the twin). */
  readonly timeScale: number;
  /** `worker.compat`: `blis` runs BLIS parity mode (docs/behaviour.md §1); absent: `vllm`. */
  readonly compat?: EngineCompat;
  /** Disaggregated: how many of the instances prefill and how many decode (the first ranks prefill, the next decode, the rest do both). */
  readonly roles?: { readonly prefill: number; readonly decode: number } | undefined;
  /** The link KV blocks cross between a prefill and a decode instance: a named profile or its three numbers. */
  readonly kvTransfer?: KvTransferProfileName | KvTransferModel | undefined;
}

/** What the worker core needs of the instances' profile (libs/engine's LatencyProfile fits). */
export interface WorkerProfile {
  readonly name?: string;
  readonly totalKvBlocks: number;
  readonly maxModelLen: number;
  /** A new instance's cold start, ms of model time (absent: at once). */
  readonly modelLoadMs?: number;
  /** The model's KV geometry: sizes a KV block for a transfer. */
  readonly kvShape?: { readonly layers: number; readonly kvHeads: number; readonly headDim: number; readonly dtypeBytes: number } | undefined;
}

/** The link and block size of a decode instance's KV transfers. */
export interface KvTransferSettings {
  readonly model: KvTransferModel;
  readonly bytesPerBlock: number;
}

export interface WorkerSettings {
  /** The worker's id; its instances are `<workerId>-r<rank>`. */
  readonly workerId: string;
  readonly instances: number;
  /** Instances ready at start (the first ranks); absent: all. */
  readonly initialInstances?: number;
  /** Engine time from an autoscaler starting an instance to its registering (the model load). */
  readonly startupUs: Micros;
  /** Engine time a draining instance (scaled down) has to finish what it holds before it hands the rest back. */
  readonly drainGraceUs: Micros;
  /** The initial instances load their model (startupUs) before they register, as a new pod's do. */
  readonly loadModelAtStart?: boolean;
  readonly model: string;
  readonly latency: LatencyModel;
  readonly totalKvBlocks: number;
  /** The longest prompt + output an instance accepts: the smaller of the model's and the profile's. */
  readonly maxModelLen: number;
  readonly maxRunning: number;
  readonly maxBatchTokens: number;
  readonly scheduler: InstanceSchedulerName;
  /** In engine time, like every time the worker core sees: the real interval × timeScale. */
  readonly heartbeatIntervalUs: Micros;
  /** Snapshots every this often (engine time); with `publishOnChange` they also go out on every change. */
  readonly loadIntervalUs: Micros;
  readonly publishOnChange: boolean;
  /** Which engine the instances reproduce (docs/behaviour.md §1); absent: `vllm`. */
  readonly compat?: EngineCompat;
  /**
   * Fraction of KV block allocations whose residency each engine measures (StepResult's
   * `kvResidency`); absent or 0: none. Only a driver that reads the observations sets it.
   */
  readonly kvResidencySample?: number;
  /** Each instance's role, by rank (docs/behaviour.md §1, "Disaggregated prefill/decode"); absent: all `both`. */
  readonly roles?: readonly WorkerRole[];
  /** What a KV transfer to one of these instances costs; absent when no instance is disaggregated. */
  readonly kvTransfer?: KvTransferSettings;
}

/**
 * Settings from the config's `worker` section, the model's context limit and the profile. With
 * `loadIntervalMs: 0` an instance publishes on every change, and still every 100 ms while idle, so
 * a reader that judges snapshots by their age can tell an idle instance from a silent one.
 * Heartbeats and snapshots keep real-time intervals (other services judge them by the wall
 * clock), so in engine time they are `timeScale` times longer.
 */
export function workerSettingsFrom(config: WorkerConfig, modelMaxLen: number, profile: WorkerProfile, latency: LatencyModel, workerId: string): WorkerSettings {
  const onChange = config.loadIntervalMs === 0;
  return {
    workerId,
    instances: config.instances,
    ...(config.initialInstances !== undefined && { initialInstances: config.initialInstances }),
    // Model time is engine time; the grace is real time, like a process's shutdown grace.
    startupUs: microsFromMillis(config.modelLoadMs ?? profile.modelLoadMs ?? 0),
    drainGraceUs: microsFromMillis((config.shutdownGraceMs ?? 5_000) * config.timeScale),
    ...(config.loadModelAtStart && { loadModelAtStart: true }),
    model: config.model,
    latency,
    totalKvBlocks: config.kvBlocks ?? profile.totalKvBlocks,
    maxModelLen: Math.min(modelMaxLen, profile.maxModelLen),
    maxRunning: config.maxRunning,
    maxBatchTokens: config.maxBatchTokens,
    scheduler: config.scheduler,
    heartbeatIntervalUs: microsFromMillis(config.heartbeatIntervalMs * config.timeScale),
    loadIntervalUs: microsFromMillis((onChange ? IDLE_SNAPSHOT_REFRESH_MS : config.loadIntervalMs) * config.timeScale),
    publishOnChange: onChange,
    compat: config.compat,
    roles: rolesByRank(config.instances, config.roles),
    ...(config.roles && { kvTransfer: kvTransferSettings(config.kvTransfer ?? 'nixl', profile) }),
  };
}

/** Ranks 0…prefill−1 prefill, the next `decode` ranks decode, the rest do both. */
export function rolesByRank(instances: number, roles: WorkerConfig['roles']): WorkerRole[] {
  const prefill = roles?.prefill ?? 0;
  const decode = roles?.decode ?? 0;
  if (prefill + decode > instances) throw new RangeError(`worker.roles: ${prefill} prefill + ${decode} decode instances is more than worker.instances (${instances})`);
  return Array.from({ length: instances }, (_, rank): WorkerRole => (rank < prefill ? 'prefill' : rank < prefill + decode ? 'decode' : 'both'));
}

/** The link's model and the profile's block size in bytes; a profile without its KV geometry cannot size a transfer. */
export function kvTransferSettings(link: KvTransferProfileName | KvTransferModel, profile: WorkerProfile): KvTransferSettings {
  if (!profile.kvShape) throw new RangeError(`worker.roles: profile ${profile.name ?? ''} has no kvShape (layers, kvHeads, headDim, dtypeBytes), so a KV transfer cannot be sized`);
  return { model: typeof link === 'string' ? KV_TRANSFER_PROFILES[link] : link, bytesPerBlock: kvBytesPerBlock({ ...profile.kvShape, blockSize: BLOCK_SIZE }) };
}
