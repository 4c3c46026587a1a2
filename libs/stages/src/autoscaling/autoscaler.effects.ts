import type { Micros } from '@sluice/contracts';

/** One decision, as the autoscaler reports it (a span, its gauges, the run's instance timeline). */
export interface AutoscalerDecision {
  readonly atUs: Micros;
  readonly metric: string;
  /** The metric's value it decided on. */
  readonly value: number;
  /** What the workers were asked to run before (the HPA's current replicas). */
  readonly current: number;
  /** Instances registered and not draining. */
  readonly ready: number;
  /** The HPA's recommendation from the metric alone. */
  readonly recommended: number;
  /** After the stabilization windows. */
  readonly stabilized: number;
  /** After the rate limits, min/max and the workers' capacity: what it set. */
  readonly desired: number;
  /** Which rule decided: the HPA, or KEDA at the edges of zero. */
  readonly rule: 'hpa' | 'activate' | 'inactive' | 'cooldown';
}

/** What the autoscaler does to the world. */
export interface AutoscalerEffects {
  /** Worker process `workerId` should run `instances` of its instances (the live `scale` verb; the twin calls its worker). */
  setActive(workerId: string, instances: number, atUs: Micros): void;
  decided(decision: AutoscalerDecision): void;
}
