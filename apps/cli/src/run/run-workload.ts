import type { WorkloadRequest } from '@sluice/workload';
import { sendRequest, type LoadClientOptions } from './load-client.js';
import type { RunRecord } from '@sluice/metrics';

export interface RunHooks {
  /** A request was sent (at its arrival time). */
  readonly onSent?: (request: WorkloadRequest) => void;
  /** A request ended, whichever way. */
  readonly onRecord?: (record: RunRecord) => void;
}

/**
 * Open loop: each request is sent at its arrival time, measured from the start of the run,
 * whatever happened to the earlier ones, so an overloaded cluster sees the offered load rather
 * than a load that politely waits for it (the coordinated-omission trap of closed-loop clients).
 */
export async function runWorkload(requests: readonly WorkloadRequest[], client: LoadClientOptions, hooks: RunHooks = {}): Promise<RunRecord[]> {
  const pending: Promise<RunRecord>[] = [];
  for (const request of requests) {
    const wait = request.arrivalMs - client.now();
    if (wait > 0.5) await client.sleep(wait);
    hooks.onSent?.(request);
    pending.push(
      sendRequest(request, client).then((record) => {
        hooks.onRecord?.(record);
        return record;
      }),
    );
  }
  return Promise.all(pending);
}
