import type { Registry } from 'prom-client';
import type { Tracer } from '@opentelemetry/api';
import type { SluiceConfigLike } from './config-like.js';
import type { Bus } from '../bus.js';

export const SERVICE_CONTEXT = Symbol('sluice.service-context');

/** What every service module gets: its identity, config, bus, tracer and metrics registry. */
export interface ServiceContext<C = SluiceConfigLike> {
  readonly name: string;
  /** Unique per process: `service.instance.id`, and the gateway's inbox id. */
  readonly instanceId: string;
  readonly config: C;
  readonly bus: Bus;
  readonly tracer: Tracer;
  readonly metrics: Registry;
  /** Null when ready; otherwise why not. */
  readiness(): string | null;
}
