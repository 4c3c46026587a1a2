import type { BlockId, LifecycleEvent, Micros, OutcomeReason } from '@sluice/contracts';
import type { EngineSnapshot, StepResult } from '@sluice/engine';
import type { FinishedTransfer, KvTransfer } from '../disaggregation/kv-transfer-ledger.js';
import type { HeldRequest, WorkerCompletion } from './held-request.js';
import type { InstanceCore } from './instance.core.js';

export type InstanceWakeUp = 'step' | 'ready' | 'transfer';
export type WorkerWakeUp = 'snapshot' | 'heartbeat' | 'startup';

/**
 * What the worker core does to the world. Times are engine µs; a service turns them into wall
 * time for the wire (its engine clock may run `timeScale` times faster), the twin uses them as
 * they are.
 */
export interface WorkerEffects<H extends HeldRequest> {
  // ── one request on one instance ───────────────────────────────────────────────────────────
  /** It reached the instance (the fault knobs are applied next). */
  received(instance: InstanceCore<H>, request: H, atUs: Micros): void;
  /** The engine took it into its queue. */
  accepted(instance: InstanceCore<H>, request: H, atUs: Micros): void;
  /** The `hang` fault is on: held, never scheduled, ended only by a cancel. */
  hung(instance: InstanceCore<H>, request: H): void;
  /** It entered the running batch; `first` is false when it comes back after a preemption. */
  admitted(instance: InstanceCore<H>, request: H, cachedTokens: number, first: boolean, atUs: Micros): void;
  preempted(instance: InstanceCore<H>, request: H, atUs: Micros): void;
  /** Tokens of one step, due at `atUs`; `previousUs` is when its last token was due (none yet: undefined). */
  tokens(instance: InstanceCore<H>, request: H, count: number, atUs: Micros, previousUs: Micros | undefined): void;
  /** Its last token is out: the end frame. */
  completed(instance: InstanceCore<H>, request: H, completion: WorkerCompletion, atUs: Micros): void;
  /** It ends here with an error (an injected failure, an unservable request): an error frame. */
  failed(instance: InstanceCore<H>, request: H, reason: OutcomeReason, message: string, atUs: Micros): void;
  /** Its gateway let it go (cancel): nothing more is sent for it. */
  cancelled(instance: InstanceCore<H>, request: H, atUs: Micros): void;
  /**
   * The instance is going away with it unfinished (a drain past its grace): it goes back to its
   * gateway, which re-submits it with the tokens already sent appended to its prompt.
   */
  handedBack(instance: InstanceCore<H>, request: H, atUs: Micros): void;
  /**
   * It left the instance, whatever the reason: the done event that in-flight accounting waits for.
   * A prefill job's done (`request.prefillFor` set) ends only that instance's part of the request.
   */
  done(instance: InstanceCore<H>, request: H, reason: OutcomeReason, atUs: Micros): void;

  // ── disaggregated prefill/decode (docs/behaviour.md §1) ───────────────────────────────────
  /** On a decode instance: send the request's prompt to `prefillInstanceId` as a prefill job. */
  prefillRequested(instance: InstanceCore<H>, request: H, prefillInstanceId: string, atUs: Micros): void;
  /**
   * On a prefill instance: a prefill job ended, `ok` (its blocks cached here, `completion` its
   * times) or `failed` (an injected failure, an unservable prompt, the instance going away): tell
   * its decode instance (`job.prefillFor`).
   */
  prefilled(instance: InstanceCore<H>, job: H, outcome: 'ok' | 'failed', atUs: Micros, completion?: WorkerCompletion): void;
  /** On a decode instance: the request's missing blocks start moving from its prefill instance. */
  transferStarted(instance: InstanceCore<H>, request: H, transfer: KvTransfer): void;
  /** Its request went away mid-transfer (cancelled, handed back): the transfer fails (`vllm:nixl_num_failed_transfers`). */
  transferFailed(instance: InstanceCore<H>, request: H, atUs: Micros): void;
  /** They landed (the request joins the instance's queue next). */
  transferEnded(instance: InstanceCore<H>, request: H, finished: FinishedTransfer, atUs: Micros): void;
  /** Its remote prefill failed or its prefill instance did not take it: the instance prefills it itself. */
  prefillLocally(instance: InstanceCore<H>, request: H, why: 'prefill_failed' | 'prefill_refused', atUs: Micros): void;

  // ── what an instance reports ──────────────────────────────────────────────────────────────
  /**
   * A step starting at `atUs` completes these requests (their state changed at its start; their
   * last tokens come at its end). Optional: only a driver that models BLIS's in-flight count needs
   * it (docs/behaviour.md §1, BLIS parity mode: −1 at the completing step's start).
   */
  completing?(instance: InstanceCore<H>, requestIds: readonly string[], atUs: Micros): void;
  /** A step ended; its tokens are due at `tokenUs` (called before any `tokens` of the step). */
  stepEnded(instance: InstanceCore<H>, result: StepResult<H>, tokenUs: Micros): void;
  /**
   * Full prompt blocks cached / no longer cached by the step that starts at `atUs` (arrays valid
   * during the call); `cleared`: the cache was empty before them (the instance starts).
   */
  kv(instance: InstanceCore<H>, stored: readonly BlockId[], removed: readonly BlockId[], atUs: Micros, cleared?: boolean): void;
  load(instance: InstanceCore<H>, snapshot: EngineSnapshot, atUs: Micros): void;
  lifecycle(instance: InstanceCore<H>, type: LifecycleEvent['type'], atUs: Micros): void;

  // ── wake-ups ──────────────────────────────────────────────────────────────────────────────
  /** Call `instance.wake(kind, atUs)` then: a step's end, a request leaving its queueing delay, a KV transfer landing. */
  wakeInstance(instance: InstanceCore<H>, kind: InstanceWakeUp, atUs: Micros): void;
  /** Call the worker's `wake(kind, atUs)` then: the load snapshot and heartbeat ticks, an instance's start-up ending. */
  wakeWorker(kind: WorkerWakeUp, atUs: Micros): void;
}
