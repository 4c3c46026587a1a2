import { runService } from '@sluice/service';
import { loadProfile } from '@sluice/config';
import { WorkerReadiness } from './worker-readiness.js';
import { WorkerModule } from './worker.module.js';

const readiness = new WorkerReadiness();
await runService('sluice-worker', (config) => ({ http: config.worker, module: WorkerModule.forProfile(loadProfile(config), readiness), readiness: readiness.readiness }));
