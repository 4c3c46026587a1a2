import { microsFromMillis, type Micros } from '@sluice/contracts';
import { flowControlFrom, type FlowControlConfig, type FlowControlRegistry, type FlowQueuesSettings, type FlowRegistrySettings, type SaturationDetector } from '@sluice/policies';

/** The keys of the config's `flowController` section the core reads (a parsed sluice.yaml fits). */
export interface FlowControllerConfig extends FlowControlConfig {
  /** false: no queue; sheddable requests are shed while the pool is saturated (legacy mode). */
  readonly enabled: boolean;
  readonly heartbeatTimeoutMs: number;
  /** How often the queue report goes out; 0 or absent = never (a hand-built config). */
  readonly queueReportIntervalMs?: number;
}

export interface FlowControlSettings {
  readonly enabled: boolean;
  readonly queues: FlowQueuesSettings;
  /** How many flows are tracked and when an idle one is forgotten. */
  readonly flows: FlowRegistrySettings;
  readonly detector: SaturationDetector;
  /** An instance silent this long leaves the pool. */
  readonly heartbeatTimeoutUs: Micros;
  /** How often the core reports its queue by model and band (`FlowControlEffects.queueReported`); 0 = never. */
  readonly queueReportIntervalUs: Micros;
}

/** Settings from the config's `flowController` section, plugins resolved through the registry. */
export function flowControlSettingsFrom(config: FlowControllerConfig, registry: FlowControlRegistry): FlowControlSettings {
  const { settings, flows, detector } = flowControlFrom(config, registry);
  return {
    enabled: config.enabled,
    queues: settings,
    flows,
    detector,
    heartbeatTimeoutUs: microsFromMillis(config.heartbeatTimeoutMs),
    queueReportIntervalUs: microsFromMillis(config.queueReportIntervalMs ?? 0),
  };
}
