import { Module } from '@nestjs/common';
import { WorkerService } from './worker.service.js';

/** Instances subscribe to their own per-instance subjects, so there are no static routes. */
@Module({ providers: [WorkerService] })
export class WorkerModule {}
