import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { GATEWAY_METRICS, httpHandlerOf, type GatewayMetrics } from './gateway.metrics.js';
import { apiError, sendJson, type ApiKind } from '@sluice/openai';
import { InferenceService } from './inference.service.js';

/** The OpenAI inference routes: `POST` only. */
const INFERENCE_ROUTES: ReadonlyMap<string, ApiKind> = new Map([
  ['/v1/completions', 'completion'],
  ['/v1/chat/completions', 'chat'],
]);

/** The route a URL names, matched as Express would by default: no query, case-insensitive, one trailing slash allowed. */
export function inferenceRouteOf(method: string | undefined, url: string | undefined): ApiKind | undefined {
  if (method !== 'POST' || url === undefined) return undefined;
  const query = url.indexOf('?');
  let path = (query === -1 ? url : url.slice(0, query)).toLowerCase();
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  return INFERENCE_ROUTES.get(path);
}

/**
 * Serves the two inference routes straight from Node's HTTP server, ahead of Nest's Express
 * router, which keeps everything else (`/v1/models`, `/busy_threshold`, health, metrics), and
 * times every request for the HTTP metrics.
 *
 * Why: the handler writes its answer by hand (streams need the raw response) and uses nothing
 * of Express or Nest's pipeline, yet routing through them was about 12% of the gateway's busy
 * time at ~1,300 requests/s (CPU profile; docs/benchmarks.md, "Live path").
 */
@Injectable()
export class InferenceRoutes implements OnApplicationBootstrap {
  private readonly logger = new Logger('gateway');

  constructor(
    private readonly http: HttpAdapterHost,
    private readonly inference: InferenceService,
    @Inject(GATEWAY_METRICS) private readonly metrics: GatewayMetrics,
  ) {}

  onApplicationBootstrap(): void {
    // Timeouts and connection limits are set by HttpServerLimits.
    const server = this.http.httpAdapter.getHttpServer() as Server;
    const framework = server.listeners('request') as RequestListener[];
    server.removeAllListeners('request');
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      const handler = httpHandlerOf(req.url);
      if (handler !== undefined) this.timed(req, res, handler);
      const kind = inferenceRouteOf(req.method, req.url);
      if (kind === undefined) {
        for (const listener of framework) listener(req, res);
        return;
      }
      this.inference.handle(kind, req, res).catch((error: unknown) => this.failed(res, error));
    });
  }

  /** vLLM's HTTP metrics: every request but health and metrics, counted when its answer ends (a stream's last byte) or the client goes. */
  private timed(req: IncomingMessage, res: ServerResponse, handler: string): void {
    const started = performance.now();
    res.once('close', () => this.metrics.http.record(handler, req.method ?? 'GET', res.statusCode, (performance.now() - started) / 1000));
  }

  /** A bug, not an outcome: answered as Nest's exception filter would have, and logged. */
  private failed(res: ServerResponse, error: unknown): void {
    this.logger.error(`inference route failed: ${(error as Error).stack ?? String(error)}`);
    if (!res.headersSent && !res.destroyed) sendJson(res, 500, apiError('internal error in the gateway', 'internal_error', null, 'internal_error'));
    else res.destroy();
  }
}
