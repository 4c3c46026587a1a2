import type { IncomingMessage, ServerResponse } from 'node:http';
import { Controller, Get, Inject, Post, Req, Res, UseGuards } from '@nestjs/common';
import { SERVICE_CONTEXT, type ServiceContext } from '@sluice/service';
import { BusyThresholdListSchema, BusyThresholdUpdateSchema, describeZodError, issuePath, subjects } from '@sluice/contracts';
import type { SluiceConfig } from '@sluice/config';
import { AdminOnly, ApiKeyGuard } from './api-key.guard.js';
import { busyThresholdAnswer } from './busy-threshold.answers.js';
import { apiError, BodyError, BodyTimeoutError, BodyTooLargeError, readJsonBody, sendJson, UnsupportedMediaTypeError } from '@sluice/openai';

/** A threshold update is a few dozen bytes. */
const MAX_UPDATE_BYTES = 16 * 1024;

/**
 * Dynamo's run-time busy thresholds (`GET` / `POST /busy_threshold`) on the frontend users call.
 * The thresholds live in the admission service; every replica gets the change at once and
 * announces it to the routers, which route only among free instances whatever the admission chain
 * (docs/behaviour.md §2). A change that not every admission replica applied alike answers 409
 * saying so, never a 200 for what is only partly in effect. A change is refused if a web page could
 * have sent it (api-key.guard.ts); with gateway.auth on, reading needs a key and changing needs an
 * admin key (docs/security.md).
 */
@Controller('busy_threshold')
@UseGuards(ApiKeyGuard)
export class BusyThresholdController {
  constructor(@Inject(SERVICE_CONTEXT) private readonly service: ServiceContext<SluiceConfig>) {}

  @Get()
  async get(@Res() res: ServerResponse): Promise<void> {
    try {
      const list = BusyThresholdListSchema.parse(await this.service.bus.ask(subjects.control('admission', 'get-busy-threshold'), {}));
      sendJson(res, 200, list);
    } catch (error) {
      sendJson(res, 503, apiError(`admission did not answer: ${(error as Error).message}`, 'service_unavailable', null, 503));
    }
  }

  @Post()
  @AdminOnly()
  async set(@Req() req: IncomingMessage, @Res() res: ServerResponse): Promise<void> {
    let body: unknown;
    try {
      body = (await readJsonBody(req, { limitBytes: MAX_UPDATE_BYTES, limitName: 'the busy_threshold update limit', timeoutMs: this.service.config.gateway.bodyTimeoutMs })).value;
    } catch (error) {
      if (error instanceof BodyTooLargeError) return sendJson(res, 413, apiError(error.message, 'invalid_request_error', null, 413), { connection: 'close' });
      if (error instanceof BodyTimeoutError) return sendJson(res, 408, apiError(error.message, 'timeout', null, 408), { connection: 'close' });
      if (error instanceof UnsupportedMediaTypeError) return sendJson(res, 415, apiError(error.message, 'invalid_request_error', null, 'unsupported_media_type'));
      if (error instanceof BodyError) return sendJson(res, 400, apiError(error.message, 'invalid_request_error', null, 400));
      // The client went away mid-body: nobody to answer.
      res.destroy();
      return;
    }
    const update = BusyThresholdUpdateSchema.safeParse(body);
    if (!update.success) {
      const param = update.error.issues[0] ? issuePath(update.error.issues[0].path) : null;
      return sendJson(res, 400, apiError(describeZodError(update.error).join('; '), 'invalid_request_error', param || null, 400));
    }
    const answers = await this.service.bus.askAll(subjects.control('admission', 'set-busy-threshold'), update.data);
    const { status, body: answer } = busyThresholdAnswer(answers);
    sendJson(res, status, answer);
  }
}
