import type { Registry } from 'prom-client';
import type { Tracer } from '@opentelemetry/api';
import type { Bus } from '@sluice/bus';

export const SERVICE_CONTEXT = Symbol('sluice.service-context');

/** What every service module gets: its identity, config, bus, tracer and metrics registry. */
/** `C` is the service's config type: the bus lib does not depend on the config schema. */
export interface ServiceContext<C = object> {
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
