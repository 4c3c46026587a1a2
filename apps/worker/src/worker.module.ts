import { Module, type DynamicModule } from '@nestjs/common';
import type { LatencyProfile } from '@sluice/engine';
import type { WorkerReadiness } from './worker-readiness.js';
import { LATENCY_PROFILE, WORKER_READINESS, WorkerService } from './worker.service.js';

/** Instances subscribe to their own per-instance subjects, so there are no static routes. */
@Module({})
export class WorkerModule {
  static forProfile(profile: LatencyProfile, readiness: WorkerReadiness): DynamicModule {
    return {
      module: WorkerModule,
      providers: [{ provide: LATENCY_PROFILE, useValue: profile }, { provide: WORKER_READINESS, useValue: readiness }, WorkerService],
    };
  }
}
