import type { CancelRequest, KvEvent, LifecycleEvent, LoadSnapshot, Micros, MigrationReason, OutcomeReason, RequestDone, ResumeStage, Stage } from '@sluice/contracts';
import type { WorkerCompletion } from '@sluice/stages';
import type { Flight } from './flight.js';
import type { StepTimes } from './step-times.js';

/*
 * The twin's parts talk to one another only through these ports, as the live processes talk only
 * through NATS subjects. Requests travel down the pipeline to parts built before their senders
 * (`StageDoors`); answers and worker signals travel back up to parts built after theirs
 * (`GatewayInbox`, `WorkerSignals`), bound once where the twin is put together (twin-world.ts).
 */

/** The frames that reach a request's gateway, each at the virtual time it arrives there. */
export interface GatewayInbox {
  /** A stage or an instance ended the attempt: its error frame. */
  error(flight: Flight, reason: OutcomeReason, message: string, stage: Stage, atUs: number): void;
  /** A stage handed the attempt back, the router lost its instance, or a drained worker gave it back: its migrate frame. */
  migrate(flight: Flight, reason: MigrationReason, resumeAt: ResumeStage, stage: Stage, holder: string, atUs: number): void;
  /** The instance completed the attempt: its end frame, with what the record needs (the step log holds the tokens' times). */
  end(flight: Flight, completion: WorkerCompletion, instanceId: string, steps: StepTimes, atUs: number): void;
}

/** What worker instances report, reaching every replica of each stage that follows it. */
export interface WorkerSignals {
  lifecycle(event: LifecycleEvent): void;
  load(snapshot: LoadSnapshot): void;
  /** Whether any replica keeps a prefix index fed by KV events (nothing is sent otherwise). */
  readonly wantsKv: boolean;
  kv(event: KvEvent): void;
  done(done: RequestDone): void;
  /** BLIS parity mode: the requests a step is completing leave the routers' in-flight counts now. */
  completing(instanceId: string, requestIds: readonly string[], atUs: Micros): void;
}

/** Where a handed-on request arrives: a replica of the stage, as its queue group picks. */
export interface StageDoors {
  admission(flight: Flight): void;
  flow(flight: Flight): void;
  router(flight: Flight): void;
  /** A gateway's cancel: every flow-control replica hears it, and the one that queued the request evicts it. */
  cancel(cancel: CancelRequest): void;
}
