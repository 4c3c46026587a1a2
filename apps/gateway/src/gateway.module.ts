import { Module } from '@nestjs/common';
import { BusyThresholdController } from './busy-threshold.controller.js';
import { CompletionsController } from './completions.controller.js';
import { InferenceService } from './inference.service.js';

@Module({ controllers: [CompletionsController, BusyThresholdController], providers: [InferenceService] })
export class GatewayModule {}
