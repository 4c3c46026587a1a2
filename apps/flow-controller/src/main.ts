import { runService } from '@sluice/service';
import { FLOW_CONTROLLER_ROUTES, FlowControllerModule } from './flow-controller.module.js';

await runService('sluice-flow-controller', (config) => ({
  http: config.flowController,
  module: FlowControllerModule,
  routes: FLOW_CONTROLLER_ROUTES,
}));
