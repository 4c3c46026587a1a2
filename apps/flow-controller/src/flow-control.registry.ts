import type { Provider } from '@nestjs/common';
import { createFlowControlRegistry } from '@sluice/policies';

/** The flow-control plugin registry: one instance per service, a Nest provider (never a global map). */
export const FLOW_CONTROL_REGISTRY = Symbol('FLOW_CONTROL_REGISTRY');

export const flowControlRegistryProvider: Provider = { provide: FLOW_CONTROL_REGISTRY, useFactory: createFlowControlRegistry };
