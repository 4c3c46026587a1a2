import { Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { SERVICE_CONTEXT, type ServiceContext } from '@sluice/service';
import { monotonicMs } from '@sluice/bus';
import type { SluiceConfig } from '@sluice/config';
import { ApiKeyGuard } from './api-key.guard.js';
import { ApiKeys } from './api-keys.js';
import { BusyThresholdController } from './busy-threshold.controller.js';
import { GATEWAY_METRICS, createGatewayMetrics } from './gateway.metrics.js';
import { HttpServerLimits } from './http-server-limits.js';
import { MetricsAccess } from './http-metrics-access.js';
import { ModelsController } from './models.controller.js';
import { InferenceRoutes } from './inference-routes.js';
import { InferenceService } from './inference.service.js';
import { OpenAiErrorFilter } from './openai-error.filter.js';

type Context = ServiceContext<SluiceConfig>;

@Module({
  controllers: [ModelsController, BusyThresholdController],
  providers: [
    { provide: GATEWAY_METRICS, useFactory: (service: Context) => createGatewayMetrics(service.metrics, { ...service.config.metrics, now: monotonicMs }), inject: [SERVICE_CONTEXT] },
    { provide: ApiKeys, useFactory: (service: Context) => new ApiKeys(service.config.gateway.auth), inject: [SERVICE_CONTEXT] },
    { provide: APP_FILTER, useClass: OpenAiErrorFilter },
    ApiKeyGuard,
    HttpServerLimits,
    MetricsAccess,
    InferenceService,
    InferenceRoutes,
  ],
})
export class GatewayModule {}
