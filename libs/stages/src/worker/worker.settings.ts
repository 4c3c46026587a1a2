import { IDLE_SNAPSHOT_REFRESH_MS, microsFromMillis, type Micros } from '@sluice/contracts';
import type { EngineCompat, InstanceSchedulerName, LatencyModel } from '@sluice/engine';

/** The keys of the config's `worker` section the core reads (a parsed sluice.yaml fits). */
export interface WorkerConfig {
  readonly instances: number;
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
}

/** What the worker core needs of the instances' profile (libs/engine's LatencyProfile fits). */
export interface WorkerProfile {
  readonly totalKvBlocks: number;
  readonly maxModelLen: number;
}

export interface WorkerSettings {
  /** The worker's id; its instances are `<workerId>-r<rank>`. */
  readonly workerId: string;
  readonly instances: number;
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
  };
}
