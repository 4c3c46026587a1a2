import { runService, stageRoutes } from '@sluice/service';
import { AdmissionModule } from './admission.module.js';
import { ADMISSION_STAGE } from './admission.wiring.js';

await runService('sluice-admission', (config) => ({ http: config.admission, module: AdmissionModule, routes: stageRoutes(ADMISSION_STAGE) }));
