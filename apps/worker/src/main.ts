import { runService } from '@sluice/bus';
import { WorkerModule } from './worker.module.js';

await runService('sluice-worker', (config) => ({ http: config.worker, module: WorkerModule }));
