import { Controller, Get, UseGuards } from '@nestjs/common';
import type { ModelList } from '@sluice/contracts';
import { ApiKeyGuard } from './api-key.guard.js';
import { InferenceService } from './inference.service.js';

/**
 * The OpenAI-compatible surface that is not inference. `POST /v1/completions` and
 * `/v1/chat/completions` are served ahead of the framework: see inference-routes.ts.
 */
@Controller('v1')
@UseGuards(ApiKeyGuard)
export class ModelsController {
  constructor(private readonly inference: InferenceService) {}

  @Get('models')
  models(): ModelList {
    const created = Math.floor(Date.now() / 1000);
    return {
      object: 'list',
      data: this.inference.modelNames().map((id) => ({ id, object: 'model', created, owned_by: 'sluice' })),
    };
  }
}
