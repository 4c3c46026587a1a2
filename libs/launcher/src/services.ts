import type { SluiceConfig } from '@sluice/config';

/** The services in start order: each one's upstream dependencies come first. */
export const SERVICE_NAMES = ['worker', 'router', 'flow-controller', 'admission', 'gateway'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

/** The config section of each service (`flow-controller` → `flowController`). */
export const SERVICE_CONFIG_KEYS = {
  worker: 'worker',
  router: 'router',
  'flow-controller': 'flowController',
  admission: 'admission',
  gateway: 'gateway',
} as const satisfies Record<ServiceName, keyof SluiceConfig>;
