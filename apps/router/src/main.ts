import { runService, stageRoutes } from '@sluice/service';
import { RouterModule } from './router.module.js';
import { ROUTER_STAGE } from './router.wiring.js';

await runService('sluice-router', (config) => ({ http: config.router, module: RouterModule, routes: stageRoutes(ROUTER_STAGE) }));
