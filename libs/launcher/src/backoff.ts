/**
 * When the supervisor restarts a process that exited, and when it stops trying: a pure schedule
 * (no clock, no timers), so the rules are unit-tested and the supervisor only applies them.
 */

export interface RestartPolicy {
  /** Delay before the first restart of a run of crashes. */
  readonly initialDelayMs: number;
  /** The delay doubles with each further restart up to this. */
  readonly maxDelayMs: number;
  /** A process that stayed ready this long before it exited starts a fresh run (delay back to initialDelayMs). */
  readonly resetAfterMs: number;
  /** Restarts in a row that exit before they are ready: then the supervisor gives up on the process. */
  readonly maxStartFailures: number;
}

/** A process manager's usual shape: 250 ms doubling to 8 s, reset after 30 s up, give up after 5 failed starts. */
export const DEFAULT_RESTART_POLICY: RestartPolicy = Object.freeze({
  initialDelayMs: 250,
  maxDelayMs: 8_000,
  resetAfterMs: 30_000,
  maxStartFailures: 5,
});

/** The delay before restart number `attempt` (1-based) of a run: initialDelayMs · 2^(attempt−1), capped. */
export function restartDelayMs(attempt: number, policy: RestartPolicy = DEFAULT_RESTART_POLICY): number {
  if (!Number.isInteger(attempt) || attempt < 1) throw new RangeError(`restart attempt must be an integer ≥ 1, got ${attempt}`);
  // 2^(attempt−1) overflows to Infinity for large attempts, which the cap absorbs.
  return Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** (attempt - 1));
}

/** What the supervisor remembers of one process between its exits. */
export interface RestartHistory {
  /** Restarts in the current run (0: none yet, or the last exit came after resetAfterMs of being ready). */
  readonly attempts: number;
  /** Restarts in a row that exited before they became ready. */
  readonly startFailures: number;
}

export const NO_RESTARTS: RestartHistory = Object.freeze({ attempts: 0, startFailures: 0 });

/** One exit, as the schedule needs it. */
export interface ExitFacts {
  /** The process had answered /readyz 200 before it exited. */
  readonly wasReady: boolean;
  /** How long it had been ready when it exited (0 if it never was). */
  readonly readyForMs: number;
}

export type RestartDecision =
  | { readonly kind: 'restart'; readonly attempt: number; readonly delayMs: number; readonly history: RestartHistory }
  | { readonly kind: 'give-up'; readonly startFailures: number; readonly history: RestartHistory };

/**
 * The decision after an exit. An exit before readiness is a failed start (only restarts reach this:
 * a first start that fails fails the whole cluster start); maxStartFailures of them in a row give
 * up. An exit after resetAfterMs of readiness is a fresh incident, so its delay starts over.
 */
export function decideRestart(history: RestartHistory, exit: ExitFacts, policy: RestartPolicy = DEFAULT_RESTART_POLICY): RestartDecision {
  const startFailures = exit.wasReady ? 0 : history.startFailures + 1;
  if (startFailures >= policy.maxStartFailures) {
    return { kind: 'give-up', startFailures, history: { attempts: history.attempts, startFailures } };
  }
  const fresh = exit.wasReady && exit.readyForMs >= policy.resetAfterMs;
  const attempt = (fresh ? 0 : history.attempts) + 1;
  return { kind: 'restart', attempt, delayMs: restartDelayMs(attempt, policy), history: { attempts: attempt, startFailures } };
}
