import { Module } from '@nestjs/common';
import { stageHostProvider } from '@sluice/service';
import { ADMISSION_STAGE } from './admission.wiring.js';

@Module({ providers: [stageHostProvider(ADMISSION_STAGE)] })
export class AdmissionModule {}
