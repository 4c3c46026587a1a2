import type { AutoscalerDecision } from '@sluice/stages';
import { Counter, Gauge, type Registry } from '@sluice/telemetry';

/** What the autoscaler knows of the pool at scrape time (AutoscalerStage.sizes). */
export interface AutoscalerReadings {
  sizes(): { readonly ready: number; readonly requested: number };
}

export interface AutoscalerMetrics {
  decided(decision: AutoscalerDecision): void;
}

/** up: more instances than it ran; down: fewer; none: it kept the size. */
export function directionOf(decision: Pick<AutoscalerDecision, 'current' | 'desired'>): 'up' | 'down' | 'none' {
  return decision.desired > decision.current ? 'up' : decision.desired < decision.current ? 'down' : 'none';
}

/**
 * The autoscaler's page (docs/metrics.md, "autoscaler"). The HPA has no metrics of its own
 * (kube-state-metrics reads its status: `kube_horizontalpodautoscaler_status_desired_replicas`,
 * `_current_replicas`), nor KEDA per decision (`keda_scaler_metrics_value` is the metric read):
 * the same facts under sluice's names. Decisions are rare (one per interval): prom-client's series.
 * Ready and starting instances are read at scrape time; the rest is what the last decision said.
 */
export function createAutoscalerMetrics(registry: Registry, readings: AutoscalerReadings): AutoscalerMetrics {
  // Before its first decision the size it wants is what the workers run (as the HPA's status starts at the current replicas).
  let lastDesired: number | undefined;
  const desired: Gauge = new Gauge({
    name: 'sluice_autoscaler_desired_instances',
    help: 'Instances the last decision set (after stabilization, rate limits, min/max and the workers’ capacity); before the first, what the workers run.',
    registers: [registry],
    collect() {
      desired.set(lastDesired ?? readings.sizes().requested);
    },
  });
  const recommended = new Gauge({ name: 'sluice_autoscaler_recommended_instances', help: 'Instances the metric alone asked for at the last decision (the HPA’s ceil(current × metric / target), before stabilization and rate limits).', registers: [registry] });
  const value = new Gauge({ name: 'sluice_autoscaler_metric_value', help: 'The value of the metric the last decision read (queueDepth, inFlight: a total; kvUtilization: a mean, 0–1).', labelNames: ['metric'], registers: [registry] });
  const ready: Gauge = new Gauge({
    name: 'sluice_autoscaler_ready_instances',
    help: 'Instances registered and not draining, as the autoscaler hears them.',
    registers: [registry],
    collect() {
      ready.set(readings.sizes().ready);
    },
  });
  const starting: Gauge = new Gauge({
    name: 'sluice_autoscaler_starting_instances',
    help: 'Instances asked for and not yet registered (loading their model).',
    registers: [registry],
    collect() {
      const sizes = readings.sizes();
      starting.set(Math.max(0, sizes.requested - sizes.ready));
    },
  });
  const decisions = new Counter({ name: 'sluice_autoscaler_decisions_total', help: 'Decisions made (one per interval), by what they did to the size: up, down or none.', labelNames: ['direction'], registers: [registry] });
  for (const direction of ['up', 'down', 'none'] as const) decisions.inc({ direction }, 0);
  return {
    decided(decision) {
      lastDesired = decision.desired;
      recommended.set(decision.recommended);
      value.set({ metric: decision.metric }, decision.value);
      const direction = directionOf(decision);
      decisions.inc({ direction });
    },
  };
}
