import type { LoadSnapshot } from '@sluice/contracts';

/** Time in the engine is microseconds (BEHAVIOUR.md). */
export type Micros = number;

/** What an instance needs of a request: no text, only sizes and the prompt's block hashes. */
export interface EngineRequest {
  readonly id: string;
  readonly inputTokens: number;
  readonly maxTokens: number;
  readonly blockHashes: readonly string[];
  readonly priority: number;
}

export type EnqueueResult = { readonly accepted: true } | { readonly accepted: false; readonly message: string };

export interface StepResult {
  readonly startUs: Micros;
  readonly durationUs: Micros;
  /** Tokens produced for each request in this step, stamped at the step's end. */
  readonly tokens: ReadonlyArray<{ readonly requestId: string; readonly count: number }>;
  /** Requests that produced their last token in this step. */
  readonly completed: readonly string[];
}

/** The load signals an instance publishes (LoadSnapshot without identity and timestamp). */
export type EngineSnapshot = Omit<LoadSnapshot, 'instanceId' | 'workerId' | 'atMs'>;

/**
 * One synthetic GPU instance. Pure: no timers, no I/O; the caller passes `now` and sleeps the
 * returned step duration. The same object runs in the worker service and in the twin.
 */
export interface InstanceEngine {
  enqueue(request: EngineRequest, nowUs: Micros): EnqueueResult;
  cancel(requestId: string, nowUs: Micros): boolean;
  hasWork(): boolean;
  step(nowUs: Micros): StepResult;
  snapshot(): EngineSnapshot;
}
