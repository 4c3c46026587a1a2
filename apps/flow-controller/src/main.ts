import { runService, stageRoutes } from '@sluice/service';
import { FlowControllerModule } from './flow-controller.module.js';
import { FLOW_CONTROLLER_STAGE } from './flow-controller.wiring.js';

await runService('sluice-flow-controller', (config) => ({
  http: config.flowController,
  module: FlowControllerModule,
  routes: stageRoutes(FLOW_CONTROLLER_STAGE),
}));
