import type { Provider } from '@nestjs/common';
import { createRoutingRegistry } from '@sluice/policies';

/** The routing plugin registry: one instance per service, a Nest provider (never a global map). */
export const ROUTING_REGISTRY = Symbol('ROUTING_REGISTRY');

export const routingRegistryProvider: Provider = { provide: ROUTING_REGISTRY, useFactory: createRoutingRegistry };
