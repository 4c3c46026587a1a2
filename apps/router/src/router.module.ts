import { Module } from '@nestjs/common';
import { stageHostProvider } from '@sluice/service';
import { ROUTER_STAGE } from './router.wiring.js';
import { routingRegistryProvider } from './routing.registry.js';

@Module({ providers: [routingRegistryProvider, stageHostProvider(ROUTER_STAGE)] })
export class RouterModule {}
