import { runService } from '@sluice/service';
import { ROUTER_ROUTES, RouterModule } from './router.module.js';

await runService('sluice-router', (config) => ({ http: config.router, module: RouterModule, routes: ROUTER_ROUTES }));
