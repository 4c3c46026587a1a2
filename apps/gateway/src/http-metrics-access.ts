import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { httpHeaders } from '@sluice/contracts';
import { ApiKeys } from './api-keys.js';
import { apiError, sendJson } from '@sluice/openai';

/**
 * `/metrics` as the framework would match it: any method, no query, any case, one trailing slash
 * allowed, and in a request line's absolute form (`GET http://host/metrics`), which Express routes
 * by its path as well.
 */
export function isMetricsPath(url: string | undefined): boolean {
  if (url === undefined) return false;
  let path: string;
  if (url.startsWith('/')) {
    const query = url.indexOf('?');
    path = query === -1 ? url : url.slice(0, query);
  } else {
    try {
      path = new URL(url).pathname;
    } catch {
      return false;
    }
  }
  path = path.toLowerCase();
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  return path === '/metrics';
}

/**
 * With gateway.auth on, `/metrics` needs a key with `metrics: true` or `admin: true` (401 without
 * a valid key, 403 with a tenant's). The page names every key id and tenant and, at a scrape, costs
 * the gateway real work: neither is for whoever can reach the port. Prometheus sends the key as
 * `authorization: { credentials_file: … }` in its scrape config (docs/security.md).
 *
 * Checked on the raw request, ahead of the framework, and not as a guard on the route: the page is
 * served by the shared ops controller of libs/service, which every service has and which no
 * gateway guard reaches, and it is refused here before any of the page is rendered.
 */
@Injectable()
export class MetricsAccess implements OnApplicationBootstrap {
  constructor(
    private readonly http: HttpAdapterHost,
    @Inject(ApiKeys) private readonly keys: ApiKeys,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.keys.enabled) return;
    const server = this.http.httpAdapter.getHttpServer() as Server;
    const next = server.listeners('request') as RequestListener[];
    server.removeAllListeners('request');
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      if (isMetricsPath(req.url) && !this.mayRead(req, res)) return;
      for (const listener of next) listener.call(server, req, res);
    });
  }

  /** True if the request's key may read the page; else answers 401 or 403 and returns false. */
  private mayRead(req: IncomingMessage, res: ServerResponse): boolean {
    const auth = this.keys.authenticate(req.headers[httpHeaders.authorization]);
    if (!auth.ok) {
      sendJson(res, 401, apiError(auth.message, 'invalid_request_error', null, 'invalid_api_key'));
      return false;
    }
    if (!auth.key.metrics) {
      const message = `/metrics needs a key with metrics: true or admin: true (gateway.auth.keys[]); key "${auth.key.id}" is neither`;
      sendJson(res, 403, apiError(message, 'invalid_request_error', null, 'insufficient_permissions'));
      return false;
    }
    return true;
  }
}
