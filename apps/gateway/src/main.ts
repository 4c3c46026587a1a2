import { randomBytes } from 'node:crypto';
import { runService } from '@sluice/service';
import { GatewayModule } from './gateway.module.js';
import { connectionCapOf, softOpenFileLimit } from './http-connection-cap.js';

await runService('sluice-gateway', (config) => {
  // A connection cap the open-file limit would pre-empt is a ConfigError: exit 2 naming the key.
  connectionCapOf(config.gateway.limits, softOpenFileLimit());
  return {
    http: config.gateway,
    module: GatewayModule,
    // The instance id names this gateway's inbox subjects, so it must be a valid subject token.
    instanceId: `gw-${randomBytes(4).toString('hex')}`,
  };
});
