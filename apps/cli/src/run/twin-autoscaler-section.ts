import type { SluiceConfig } from '@sluice/config';
import type { RunReport } from '@sluice/metrics';
import { autoscalerSection, type AutoscalerSection } from '@sluice/report';
import type { TwinAutoscalerLog } from '@sluice/twin';

/** The instances a cluster starts with: each worker process's first `initialInstances` (default: all). */
export function initialInstancesOf(config: Pick<SluiceConfig, 'worker'>): number {
  return config.worker.processes * (config.worker.initialInstances ?? config.worker.instances);
}

/** report.json's `autoscaler` of a twin run, from what its autoscaler decided and heard (µs of virtual time → the records' ms). */
export function twinAutoscalerSection(log: TwinAutoscalerLog | undefined, config: SluiceConfig, summary: RunReport): { autoscaler: AutoscalerSection } | Record<string, never> {
  if (log === undefined) return {};
  const input = {
    metric: config.autoscaler.metric,
    initialInstances: initialInstancesOf(config),
    decisions: log.decisions.map(({ atUs, value, current, ready, recommended, desired, rule }) => ({ atMs: atUs / 1000, value, current, ready, recommended, desired, rule })),
    lifecycle: log.lifecycle.map(({ instanceId, type, atUs }) => ({ instanceId, type, atMs: atUs / 1000 })),
  };
  return { autoscaler: autoscalerSection(input, summary) };
}
