import { Module } from '@nestjs/common';
import { CompletionsController } from './completions.controller.js';
import { InferenceService } from './inference.service.js';

@Module({ controllers: [CompletionsController], providers: [InferenceService] })
export class GatewayModule {}
