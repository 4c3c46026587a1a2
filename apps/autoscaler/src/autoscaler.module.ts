import { Module } from '@nestjs/common';
import { AutoscalerService } from './autoscaler.service.js';

@Module({ providers: [AutoscalerService] })
export class AutoscalerModule {}
