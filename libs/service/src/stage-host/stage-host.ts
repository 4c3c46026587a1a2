import { Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { epochMicros, suspendExpiryWhileDisconnected, WakeUpTimers } from '@sluice/bus';
import type { SluiceConfig } from '@sluice/config';
import { InferenceRequestSchema, PresenceEventSchema, type CancelRequest, type InferenceRequest } from '@sluice/contracts';
import type { BusTransport } from '../bus.transport.js';
import { RequestIntake } from '../request-intake.js';
import type { ServiceContext } from '../service-context.js';
import { STAGE_EVENT_ROUTES, STAGE_EVENT_SCHEMAS, type StageEventKind } from '../stage-event-routes.js';
import { REQUEST_CANCEL_ROUTE, WORKER_EVENT_ROUTES, WORKER_EVENT_SCHEMAS, type WorkerEventKind } from '../worker-event-routes.js';
import { controlAnswer } from './control-answer.js';
import { REQUEST_STAGES } from './request-stages.js';
import type { AnyStageBinding, AnyStageDefinition } from './stage-definition.js';
import { controlRoutes } from './stage-routes.js';

/**
 * Runs one request-taking stage on the bus: everything admission, flow control and routing do
 * alike, so each app keeps only its core's wiring, its bus adapter, its metrics and its verbs.
 *
 * - Requests enter through the intake: each attempt is served once and its gateway told who holds
 *   it (a `held` frame, or for admission its ack); a duplicate, superseded or cancelled copy is not served.
 * - Cancels are remembered by the intake, those that come first included; a core that holds
 *   requests while they wait is also told of a cancel that ends the newest attempt seen here, and
 *   of an older attempt a newer one supersedes (its cancel was lost).
 * - The core's wake-ups run on timers; while the bus is away it expires no peer.
 * - The core starts on module init, before the bus routes go live, and stops on module destroy,
 *   after the process stopped taking handoffs and before the bus drains, so what it hands back
 *   is still sent.
 */
export class StageHost implements OnModuleInit, OnModuleDestroy {
  private readonly logger: Logger;
  private readonly timers: WakeUpTimers<string>;
  private readonly intake: RequestIntake;
  private readonly binding: AnyStageBinding;

  constructor(definition: AnyStageDefinition, service: ServiceContext<SluiceConfig>, transport: BusTransport, deps: readonly unknown[]) {
    this.logger = new Logger(REQUEST_STAGES[definition.stage].service);
    this.timers = new WakeUpTimers((kind, atUs, nowUs) => this.binding.core.wake(kind, atUs, nowUs), epochMicros);
    this.intake = new RequestIntake(service, definition.stage, { heldFrame: !REQUEST_STAGES[definition.stage].ackNamesHolder });
    this.binding = definition.wire({ service, wakeUps: this.timers, intake: this.intake, logger: this.logger }, ...deps);
    suspendExpiryWhileDisconnected(service.bus, this.binding.core);
    this.handle(definition, transport);
  }

  onModuleInit(): void {
    this.binding.core.start(epochMicros());
    this.binding.started?.();
  }

  /** Shutdown: a core that holds requests hands them back to their gateways, which queue them again elsewhere. */
  onModuleDestroy(): void {
    const handedBack = this.binding.core.stop();
    this.timers.clear();
    if (typeof handedBack === 'number' && handedBack > 0) this.logger.warn(`shutting down: handed ${handedBack} queued requests back to their gateways`);
  }

  private submit(request: InferenceRequest): void {
    const taken = this.intake.take(request);
    if (!taken) return; // a duplicate, superseded or cancelled copy
    // An older attempt still held here (its cancel was lost): it leaves first.
    if (taken === 'supersede') this.binding.cancel?.({ requestId: request.id, reason: 'superseded', attempt: request.attempt - 1 }, epochMicros());
    this.binding.take(request, epochMicros());
  }

  private cancel(cancel: CancelRequest): void {
    // A cancel of an older attempt leaves the newer one held here alone.
    if (!this.intake.cancel(cancel)) return;
    this.binding.cancel?.(cancel, epochMicros());
  }

  /**
   * One handler per route of `stageRoutes(definition)`, each given the schema its route checks. A
   * route the binding does not take stops the start-up here, naming it.
   */
  private handle(definition: AnyStageDefinition, transport: BusTransport): void {
    const { binding } = this;
    const missing = (what: string): Error => new Error(`the ${definition.stage} stage declares ${what} but its wiring does not take it`);
    transport.handle(REQUEST_STAGES[definition.stage].submit, InferenceRequestSchema, (request) => this.submit(request));
    transport.handle(REQUEST_CANCEL_ROUTE[0], REQUEST_CANCEL_ROUTE[1].schema, (cancel) => this.cancel(cancel));
    for (const kind of definition.follows) this.follow(transport, kind, missing);
    for (const kind of definition.hears ?? []) this.hear(transport, kind, missing);
    if (definition.presence !== undefined) {
      const presence = binding.presence?.bind(binding);
      if (!presence) throw missing(`presence on ${definition.presence}`);
      transport.handle(definition.presence, PresenceEventSchema, (event) => presence(event, epochMicros()));
    }
    for (const { verb, subject, schema } of controlRoutes(definition)) {
      const answer = binding.controls?.[verb];
      if (!answer) throw missing(`the control verb ${verb}`);
      // The route's schema is the one the definition gave this verb, which its answer is typed by.
      transport.handle(subject, schema, controlAnswer(this.logger, verb, answer as (input: unknown) => unknown));
    }
  }

  private hear<E extends StageEventKind>(transport: BusTransport, kind: E, missing: (what: string) => Error): void {
    const take = this.binding.hear?.[kind];
    if (!take) throw missing(`${kind} events`);
    transport.handle(STAGE_EVENT_ROUTES[kind][0], STAGE_EVENT_SCHEMAS[kind], (event) => take(event, epochMicros()));
  }

  private follow<E extends WorkerEventKind>(transport: BusTransport, kind: E, missing: (what: string) => Error): void {
    const take = this.binding.follow[kind];
    if (!take) throw missing(`${kind} events`);
    transport.handle(WORKER_EVENT_ROUTES[kind][0], WORKER_EVENT_SCHEMAS[kind], (event) => take(event, epochMicros()));
  }
}
