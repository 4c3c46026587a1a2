import { Module } from '@nestjs/common';
import { BusyThresholdController } from './busy-threshold.controller.js';
import { ModelsController } from './models.controller.js';
import { InferenceRoutes } from './inference-routes.js';
import { InferenceService } from './inference.service.js';

@Module({ controllers: [ModelsController, BusyThresholdController], providers: [InferenceService, InferenceRoutes] })
export class GatewayModule {}
