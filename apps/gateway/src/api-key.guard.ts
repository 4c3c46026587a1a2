import type { IncomingMessage } from 'node:http';
import { HttpException, Inject, Injectable, SetMetadata, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { httpHeaders } from '@sluice/contracts';
import { SERVICE_CONTEXT, type ServiceContext } from '@sluice/service';
import type { SluiceConfig } from '@sluice/config';
import { ApiKeys } from './api-keys.js';
import { crossSiteRefusal } from './http-cross-site.js';
import { apiError } from '@sluice/openai';

const ADMIN_ONLY = 'sluice:admin-only';

/**
 * The route changes the cluster: it refuses cross-site writes (http-cross-site.ts) whatever the
 * auth, and with gateway.auth on it needs a key with `admin: true`.
 */
export const AdminOnly = (): MethodDecorator => SetMetadata(ADMIN_ONLY, true);

/**
 * The framework's routes (`/v1/models`, `/busy_threshold`): those marked `@AdminOnly()` first
 * refuse what a web page could have sent (wrong content type, another origin, a rebound host),
 * with or without keys. Under gateway.auth: a valid key for any of them, an admin key for the
 * admin ones. The inference routes check keys themselves (request-intake.ts), where the outcome is
 * counted; `/metrics` is guarded ahead of the framework (http-metrics-access.ts); health and
 * readiness stay open to probes (docs/security.md).
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    @Inject(ApiKeys) private readonly keys: ApiKeys,
    private readonly reflector: Reflector,
    @Inject(SERVICE_CONTEXT) private readonly service: ServiceContext<SluiceConfig>,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<IncomingMessage>();
    const adminOnly = this.reflector.get<boolean | undefined>(ADMIN_ONLY, context.getHandler()) === true;
    const crossSite = adminOnly ? crossSiteRefusal(req.headers, this.service.config.gateway.admin) : undefined;
    if (crossSite !== undefined) throw new HttpException(apiError(crossSite.message, 'invalid_request_error', null, crossSite.code), crossSite.status);
    if (!this.keys.enabled) return true;
    const auth = this.keys.authenticate(req.headers[httpHeaders.authorization]);
    if (!auth.ok) throw new HttpException(apiError(auth.message, 'invalid_request_error', null, 'invalid_api_key'), 401);
    if (adminOnly && !auth.key.admin) {
      const message = `${req.method ?? ''} ${req.url ?? ''} changes the cluster and needs an admin key (gateway.auth.keys[].admin: true); key "${auth.key.id}" is not one`;
      throw new HttpException(apiError(message, 'invalid_request_error', null, 'insufficient_permissions'), 403);
    }
    return true;
  }
}
