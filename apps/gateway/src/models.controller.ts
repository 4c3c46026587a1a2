import { Controller, Get, NotFoundException, Param, UseGuards } from '@nestjs/common';
import type { Model, ModelList } from '@sluice/contracts';
import { ApiKeyGuard } from './api-key.guard.js';
import { apiError } from '@sluice/openai';
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
    return { object: 'list', data: this.inference.modelNames().map((id) => modelObject(id, created)) };
  }

  /** One model (OpenAI's retrieve); an id not served is OpenAI's 404, code `model_not_found`. */
  @Get('models/:id')
  model(@Param('id') id: string): Model {
    if (!this.inference.modelNames().includes(id)) {
      throw new NotFoundException(apiError(`The model '${id}' does not exist`, 'invalid_request_error', 'model', 'model_not_found'));
    }
    return modelObject(id, Math.floor(Date.now() / 1000));
  }
}

function modelObject(id: string, created: number): Model {
  return { id, object: 'model', created, owned_by: 'sluice' };
}
