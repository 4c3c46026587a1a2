import { runService } from '@sluice/service';
import { ADMISSION_ROUTES, AdmissionModule } from './admission.module.js';

await runService('sluice-admission', (config) => ({ http: config.admission, module: AdmissionModule, routes: ADMISSION_ROUTES }));
