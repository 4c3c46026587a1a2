import type { IncomingMessage, ServerResponse } from 'node:http';
import { Controller, Get, Inject, Post, Req, Res, UseGuards } from '@nestjs/common';
import { SERVICE_CONTEXT, type ServiceContext } from '@sluice/service';
import { BusyThresholdEntrySchema, BusyThresholdListSchema, BusyThresholdUpdateSchema, describeZodError, issuePath, subjects } from '@sluice/contracts';
import type { SluiceConfig } from '@sluice/config';
import { AdminOnly, ApiKeyGuard } from './api-key.guard.js';
import { apiError, BodyError, BodyTimeoutError, BodyTooLargeError, readJsonBody, sendJson } from './http-io.js';

/** A threshold update is a few dozen bytes. */
const MAX_UPDATE_BYTES = 16 * 1024;

/**
 * Dynamo's run-time busy thresholds (`GET` / `POST /busy_threshold`) on the frontend users call.
 * The thresholds live in the admission service; every replica gets the change at once. With
 * gateway.auth on, reading needs a key and changing needs an admin key (docs/security.md).
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
    if (answers.length === 0) return sendJson(res, 503, apiError('no admission service answered', 'service_unavailable', null, 503));
    const refused = answers.find((a) => !a.ok);
    if (refused && !refused.ok) {
      // The admission service names the field first (`model: unknown model …`).
      const param = /^(\w+):/.exec(refused.message)?.[1] ?? null;
      return sendJson(res, 400, apiError(refused.message, 'invalid_request_error', param, 400));
    }
    const first = answers[0]!;
    sendJson(res, 200, BusyThresholdEntrySchema.parse(first.ok ? first.result : undefined));
  }
}
