import type { SluiceConfig } from '@sluice/config';

/**
 * The services in start order: each one's upstream dependencies come first. The autoscaler comes
 * last, so it is the first to stop: no decision resizes a cluster that is shutting down.
 */
export const SERVICE_NAMES = ['worker', 'router', 'flow-controller', 'admission', 'gateway', 'autoscaler'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

/** The config section of each service (`flow-controller` → `flowController`). */
export const SERVICE_CONFIG_KEYS = {
  worker: 'worker',
  router: 'router',
  'flow-controller': 'flowController',
  admission: 'admission',
  gateway: 'gateway',
  autoscaler: 'autoscaler',
} as const satisfies Record<ServiceName, keyof SluiceConfig>;

/** The services a whole cluster runs with this config: the autoscaler only when `autoscaler.enabled`. */
export function servicesOf(config: Pick<SluiceConfig, 'autoscaler'>): ServiceName[] {
  return SERVICE_NAMES.filter((name) => name !== 'autoscaler' || config.autoscaler.enabled);
}
