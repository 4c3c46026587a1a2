import { ConfigError } from '@sluice/config';
import { runService } from '@sluice/service';
import { AutoscalerModule } from './autoscaler.module.js';
import { AUTOSCALER_ROUTES } from './autoscaler.routes.js';

await runService('sluice-autoscaler', (config) => {
  // Started by hand (`--only autoscaler`, a container) with the section off: it would decide nothing.
  if (!config.autoscaler.enabled) throw new ConfigError(['autoscaler.enabled: false: the autoscaler process has nothing to do; set autoscaler.enabled: true (sluice up starts it then)']);
  return { http: config.autoscaler, module: AutoscalerModule, routes: AUTOSCALER_ROUTES };
});
