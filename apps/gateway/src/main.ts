import { randomBytes } from 'node:crypto';
import { runService } from '@sluice/service';
import { GatewayModule } from './gateway.module.js';

// The instance id names this gateway's inbox subjects, so it must be a valid subject token.
await runService('sluice-gateway', (config) => ({
  http: config.gateway,
  module: GatewayModule,
  instanceId: `gw-${randomBytes(4).toString('hex')}`,
}));
