import type { InjectionToken, Logger } from '@nestjs/common';
import type { z } from 'zod';
import type { SluiceConfig } from '@sluice/config';
import type { CancelRequest, ControlVerb, InferenceRequest, Micros, PresenceEvent } from '@sluice/contracts';
import type { RequestIntake } from '../request-intake.js';
import type { ServiceContext } from '../service-context.js';
import type { StageEventKind, StageEvents } from '../stage-event-routes.js';
import type { WorkerEventKind, WorkerEvents } from '../worker-event-routes.js';
import type { RequestStage, ServiceOf } from './request-stages.js';

/** The control verbs a stage answers, each with the schema of what it is asked (from libs/contracts). */
export type ControlSchemas<S extends RequestStage> = { readonly [V in ControlVerb<ServiceOf<S>>]?: z.ZodType };

/**
 * What the host drives in a stage core: its life on the clock. The cores of libs/stages have
 * these methods already. `wake` is a method, so a core whose wake-ups are a union of its own
 * kinds fits: the host's timers only ever hand back the kinds the core asked for.
 */
export interface HostedCore {
  start(nowUs: Micros): void;
  /** At shutdown; a core that holds requests hands them back to their gateways and says how many. */
  stop(): number | void;
  wake(kind: string, atUs: Micros, nowUs: Micros): void;
  suspendExpiry(): void;
  resumeExpiry(nowUs: Micros): void;
}

/** What the host gives a stage's wiring: the service, its timers, its intake, its logger. */
export interface StageHostKit {
  readonly service: ServiceContext<SluiceConfig>;
  /** Timers for the core's wake-ups (cleared at shutdown). */
  readonly wakeUps: { wakeAt(kind: string, atUs: Micros): void };
  /** Where requests enter; an adapter hands requests back to their gateways through it. */
  readonly intake: RequestIntake;
  /** Named after the service, as its log lines always were. */
  readonly logger: Logger;
}

/** How the core takes what the host receives; `nowUs` is read once per message, by the host. */
interface BindingBase<F extends WorkerEventKind> {
  readonly core: HostedCore;
  /** A request this process serves: the intake already took it (each attempt once). */
  take(request: InferenceRequest, nowUs: Micros): void;
  /**
   * For a core that holds requests while they wait (flow control's queues): a cancel that ends
   * the newest attempt seen here, and the older attempt a newer one supersedes. Without it, cancels
   * only feed the intake, which refuses the copies they end.
   */
  cancel?(cancel: CancelRequest, nowUs: Micros): void;
  readonly follow: { readonly [E in F]: (event: WorkerEvents[E], nowUs: Micros) => void };
  /** What it hears from other stages (each kind its definition's `hears` names; checked at start-up). */
  readonly hear?: { readonly [E in StageEventKind]?: (event: StageEvents[E], nowUs: Micros) => void };
  /** Its replicas' presence (required when the definition names a `presence` subject). */
  presence?(event: PresenceEvent, nowUs: Micros): void;
  /** Once the core has started (a line for the log). */
  started?(): void;
}

type ControlAnswers<C> = { readonly [V in keyof C]-?: (input: z.infer<NonNullable<C[V]>>) => unknown };

/** The stage's side of the host: its core, how the core takes each message, its control verbs. */
export type StageBinding<F extends WorkerEventKind, C> = BindingBase<F> & (keyof C extends never ? { readonly controls?: undefined } : { readonly controls: ControlAnswers<C> });

/** Nest tokens of what `wire` takes besides the kit (a plugin registry), in its order. */
type InjectOf<D extends readonly unknown[]> = D extends readonly [] ? { readonly inject?: readonly [] } : { readonly inject: { readonly [I in keyof D]: InjectionToken } };

/**
 * A request-taking stage as the host runs it: which stage, what it follows besides requests and
 * cancels, the control verbs it answers, and `wire`, which builds its core and bus adapter from the
 * kit (and the injected deps) and says how the core takes each message. The inbound route table
 * (`stageRoutes`) and the handlers (`StageHost`) both come from it, so they cannot disagree.
 */
export type StageDefinition<S extends RequestStage, F extends WorkerEventKind, C extends ControlSchemas<S>, D extends readonly unknown[]> = {
  readonly stage: S;
  /** The worker reports it follows (every replica gets each one). */
  readonly follows: readonly F[];
  /** What it hears from other stages (STAGE_EVENT_ROUTES), every replica each message. */
  readonly hears?: readonly StageEventKind[];
  /** The presence subject pattern of its own replicas, when it splits something among them. */
  readonly presence?: string;
  readonly controls?: C;
  wire(kit: StageHostKit, ...deps: D): StageBinding<F, C>;
} & InjectOf<D>;

/**
 * Any stage definition, as the host reads it: what it follows, answers and takes, looked up by
 * name. A definition's own types tie each handler to its route's schema; here they are checked
 * at start-up instead (`BusTransport.handle` takes only the schema the route declares).
 */
export interface AnyStageDefinition {
  readonly stage: RequestStage;
  readonly follows: readonly WorkerEventKind[];
  readonly hears?: readonly StageEventKind[];
  readonly presence?: string;
  readonly controls?: Readonly<Record<string, z.ZodType | undefined>>;
  readonly inject?: readonly InjectionToken[];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the deps the definition's own `inject` tokens resolve to
  wire(kit: StageHostKit, ...deps: any[]): AnyStageBinding;
}

/** Any binding, as the host reads it (see AnyStageDefinition). */
export interface AnyStageBinding extends Omit<BindingBase<WorkerEventKind>, 'follow'> {
  readonly follow: { readonly [E in WorkerEventKind]?: (event: WorkerEvents[E], nowUs: Micros) => void };
  readonly controls?: Readonly<Record<string, ((input: never) => unknown) | undefined>>;
}

/** Declares a stage for the host; an identity that lets TypeScript infer the definition's types. */
export function requestStage<S extends RequestStage, F extends WorkerEventKind, C extends ControlSchemas<S> = Record<never, never>, D extends readonly unknown[] = []>(
  definition: StageDefinition<S, F, C, D>,
): StageDefinition<S, F, C, D> {
  return definition;
}
