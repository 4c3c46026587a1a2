import type { IncomingMessage } from 'node:http';
import { HttpException, Inject, Injectable, SetMetadata, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { httpHeaders } from '@sluice/contracts';
import { ApiKeys } from './api-keys.js';
import { apiError } from './http-io.js';

const ADMIN_ONLY = 'sluice:admin-only';

/** The route changes the cluster: with gateway.auth on it needs a key with `admin: true`. */
export const AdminOnly = (): MethodDecorator => SetMetadata(ADMIN_ONLY, true);

/**
 * The framework's routes (`/v1/models`, `/busy_threshold`) under gateway.auth: a valid key for
 * any of them, an admin key for those marked `@AdminOnly()`. With auth off everything passes, as
 * before. The inference routes check keys themselves (request-intake.ts), where the outcome is
 * counted; health, readiness and metrics stay open to probes and Prometheus (docs/security.md).
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    @Inject(ApiKeys) private readonly keys: ApiKeys,
    private readonly reflector: Reflector,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    if (!this.keys.enabled) return true;
    const req = context.switchToHttp().getRequest<IncomingMessage>();
    const auth = this.keys.authenticate(req.headers[httpHeaders.authorization]);
    if (!auth.ok) throw new HttpException(apiError(auth.message, 'invalid_request_error', null, 'invalid_api_key'), 401);
    if (this.reflector.get<boolean | undefined>(ADMIN_ONLY, context.getHandler()) === true && !auth.key.admin) {
      const message = `${req.method ?? ''} ${req.url ?? ''} changes the cluster and needs an admin key (gateway.auth.keys[].admin: true); key "${auth.key.id}" is not one`;
      throw new HttpException(apiError(message, 'invalid_request_error', null, 'insufficient_permissions'), 403);
    }
    return true;
  }
}
