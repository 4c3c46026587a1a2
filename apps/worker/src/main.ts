import { runService } from '@sluice/service';
import { loadProfile } from '@sluice/config';
import { WorkerModule } from './worker.module.js';

await runService('sluice-worker', (config) => ({ http: config.worker, module: WorkerModule.forProfile(loadProfile(config)) }));
