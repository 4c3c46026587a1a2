import type { ServerResponse } from 'node:http';
import { Catch, HttpException, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { apiError, sendJson } from '@sluice/openai';

/**
 * Every error the framework answers at the gateway (no route, wrong method, a guard's refusal, a
 * controller's bug) in OpenAI's error shape, as the inference routes answer theirs: a client, or a
 * fuzzer, reads `{"error": {message, type, param, code}}` from every route. Answers that already
 * have a shape of their own (ours, `/readyz`'s) go out unchanged.
 */
@Catch()
export class OpenAiErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('gateway');

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<ServerResponse>();
    if (res.headersSent || res.destroyed) {
      res.destroy();
      return;
    }
    if (!(exception instanceof HttpException)) {
      this.logger.error(`route failed: ${(exception as Error).stack ?? String(exception)}`);
      sendJson(res, 500, apiError('internal error in the gateway', 'server_error', null, 'internal'));
      return;
    }
    const status = exception.getStatus();
    const body = exception.getResponse();
    sendJson(res, status, isFrameworkDefault(body) ? apiError(messageOf(body), errorTypeOf(status), null, status) : body);
  }
}

/** Nest's own answer (`{statusCode, message, error}`) or a bare string, as opposed to a body a route chose. */
function isFrameworkDefault(body: unknown): body is string | { message?: unknown } {
  return typeof body === 'string' || (typeof body === 'object' && body !== null && 'statusCode' in body);
}

function messageOf(body: string | { message?: unknown }): string {
  if (typeof body === 'string') return body;
  if (Array.isArray(body.message)) return body.message.join('; ');
  return typeof body.message === 'string' ? body.message : 'error';
}

function errorTypeOf(status: number): string {
  return status >= 500 ? 'server_error' : 'invalid_request_error';
}
