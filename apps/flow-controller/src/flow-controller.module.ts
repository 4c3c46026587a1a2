import { Module } from '@nestjs/common';
import { stageHostProvider } from '@sluice/service';
import { flowControlRegistryProvider } from './flow-control.registry.js';
import { FLOW_CONTROLLER_STAGE } from './flow-controller.wiring.js';

@Module({ providers: [flowControlRegistryProvider, stageHostProvider(FLOW_CONTROLLER_STAGE)] })
export class FlowControllerModule {}
