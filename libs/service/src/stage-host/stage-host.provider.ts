import type { FactoryProvider } from '@nestjs/common';
import type { SluiceConfig } from '@sluice/config';
import { BusTransport } from '../bus.transport.js';
import { SERVICE_CONTEXT, type ServiceContext } from '../service-context.js';
import type { AnyStageDefinition } from './stage-definition.js';
import { StageHost } from './stage-host.js';

/**
 * The host of `definition` as a provider of the app's module, built with the service context, the
 * bus transport (the bootstrap provides it when the service has routes: pass `stageRoutes`) and
 * the definition's `inject` tokens, in order, for its `wire`.
 */
export function stageHostProvider(definition: AnyStageDefinition): FactoryProvider<StageHost> {
  return {
    provide: StageHost,
    useFactory: (service: ServiceContext<SluiceConfig>, transport: BusTransport, ...deps: unknown[]) => new StageHost(definition, service, transport, deps),
    inject: [SERVICE_CONTEXT, BusTransport, ...(definition.inject ?? [])],
  };
}
