import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A few small requests before the measured run, as a serving system is warm: V8 compiles the hot
 * paths of every process, so the pre-fault TTFT the recovery is measured against is not the
 * cold start's. Their outcomes do not matter; the books are read after them.
 */
export async function warmUp(gatewayUrl: string, model: string, requests = 12): Promise<void> {
  for (let i = 0; i < requests; i++) {
    try {
      const res = await fetch(`${gatewayUrl}/v1/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model, prompt: [i + 1, i + 2], max_tokens: 2 }),
        signal: AbortSignal.timeout(10_000),
      });
      await res.text();
    } catch {
      // A gateway that does not answer shows in the run itself.
    }
  }
}

/** Polls until `check` holds or `timeoutMs` passes; resolves to whether it held. */
export async function waitUntil(check: () => Promise<boolean>, timeoutMs: number, intervalMs = 100): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > until) return false;
    await sleep(intervalMs);
  }
}
