import type { ChildProcess } from 'node:child_process';
import { delay } from './net.js';
import { isRunning } from './process.js';

/** Why polling a service's /readyz ended. */
export type ReadyOutcome = 'ready' | 'exited' | 'timeout' | 'aborted';

export interface PollReadyOptions {
  /** Give up at this Date.now() (default: never; the child's exit or the signal ends it). */
  readonly deadline?: number;
  readonly signal?: AbortSignal;
  /** Between probes (default 50 ms). */
  readonly intervalMs?: number;
}

/** GET `url` with a second to answer, cut short by `signal`; rejects as `fetch` does (refused, timed out, aborted). */
export function getWithinASecond(url: string, signal?: AbortSignal): Promise<Response> {
  const timeout = AbortSignal.timeout(1_000);
  return fetch(url, { signal: signal ? AbortSignal.any([timeout, signal]) : timeout });
}

/** GET `<url>/readyz` answered 200 within a second (anything else, refused connections included: not ready). */
export async function answersReady(url: string, signal?: AbortSignal): Promise<boolean> {
  try {
    const res = await getWithinASecond(`${url}/readyz`, signal);
    await res.body?.cancel();
    return res.status === 200;
  } catch {
    return false; // not listening yet, or aborted
  }
}

/**
 * Polls the child's /readyz until it answers 200, the child exits, the deadline passes or the
 * signal aborts. The child's exit and the abort cut a pause short, so a crash is seen at once
 * rather than after the next probe.
 */
export async function pollReady(child: ChildProcess, url: string, options: PollReadyOptions = {}): Promise<ReadyOutcome> {
  const { deadline, signal, intervalMs = 50 } = options;
  const exited = new Promise<void>((resolve) => {
    if (!isRunning(child)) resolve();
    child.once('exit', () => resolve());
  });
  const aborted = new Promise<void>((resolve) => {
    if (signal?.aborted) resolve();
    signal?.addEventListener('abort', () => resolve(), { once: true });
  });
  for (;;) {
    if (signal?.aborted) return 'aborted';
    if (!isRunning(child) || child.pid === undefined) return 'exited';
    if (await answersReady(url, signal)) return isRunning(child) ? 'ready' : 'exited';
    if (signal?.aborted) return 'aborted';
    if (deadline !== undefined && Date.now() > deadline) return 'timeout';
    await Promise.race([delay(intervalMs), exited, aborted]);
  }
}
