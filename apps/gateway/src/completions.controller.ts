import type { IncomingMessage, ServerResponse } from 'node:http';
import { Controller, Get, Post, Req, Res } from '@nestjs/common';
import type { ModelList } from '@sluice/contracts';
import { InferenceService } from './inference.service.js';

/** The OpenAI-compatible surface. Responses are written by hand: streaming needs the raw socket. */
@Controller('v1')
export class CompletionsController {
  constructor(private readonly inference: InferenceService) {}

  @Post('completions')
  completions(@Req() req: IncomingMessage, @Res() res: ServerResponse): Promise<void> {
    return this.inference.handle('completion', req, res);
  }

  @Post('chat/completions')
  chat(@Req() req: IncomingMessage, @Res() res: ServerResponse): Promise<void> {
    return this.inference.handle('chat', req, res);
  }

  @Get('models')
  models(): ModelList {
    const created = Math.floor(Date.now() / 1000);
    return {
      object: 'list',
      data: this.inference.modelNames().map((id) => ({ id, object: 'model', created, owned_by: 'sluice' })),
    };
  }
}
