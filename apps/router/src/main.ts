import { runService } from '@sluice/bus';
import { ROUTER_ROUTES, RouterModule } from './router.module.js';

await runService('sluice-router', (config) => ({ http: config.router, module: RouterModule, routes: ROUTER_ROUTES }));
