import { Module, type DynamicModule } from '@nestjs/common';
import type { LatencyProfile } from '@sluice/engine';
import { LATENCY_PROFILE, WorkerService } from './worker.service.js';

/** Instances subscribe to their own per-instance subjects, so there are no static routes. */
@Module({})
export class WorkerModule {
  static forProfile(profile: LatencyProfile): DynamicModule {
    return { module: WorkerModule, providers: [{ provide: LATENCY_PROFILE, useValue: profile }, WorkerService] };
  }
}
