import { httpHeaders } from '@sluice/contracts';

/** The tenant warm-up requests run as: they are real requests, counted under it wherever tenants are counted. */
export const WARM_UP_FAIRNESS_ID = 'sluice-warmup';

export interface WarmUpOptions {
  readonly requests: number;
  readonly model: string;
  /** Requests in flight at once (default 4). */
  readonly concurrency?: number;
  readonly signal?: AbortSignal;
  /** The warm-up gives up after this long in all (default 30 s): a broken pipeline must not hold start-up for its request deadlines. */
  readonly budgetMs?: number;
  /** A gateway API key (gateway.auth), sent as `Authorization: Bearer`. */
  readonly apiKey?: string;
}

export interface WarmUpResult {
  readonly ok: number;
  readonly failed: number;
  readonly ms: number;
}

/**
 * Sends `requests` short completions through the gateway before the cluster is reported ready,
 * alternating the four shapes a client uses (completion and chat, plain and streamed), so every
 * process has run its hot path before the first user request: JIT tiers, schemas compiled on
 * first use, lazily loaded modules, connections. Measured: the first request after
 * start-up took ~60 ms more than the next ones, and the next ten 3–5× a warm one.
 */
export async function warmUp(gatewayUrl: string, { requests, model, concurrency = 4, signal, budgetMs = 30_000, apiKey }: WarmUpOptions): Promise<WarmUpResult> {
  const started = performance.now();
  const budget = AbortSignal.timeout(budgetMs);
  const stop = signal ? AbortSignal.any([signal, budget]) : budget;
  let next = 0;
  let ok = 0;
  let failed = 0;
  const one = async (i: number): Promise<void> => {
    const chat = i % 2 === 1;
    const stream = i % 4 >= 2;
    const prompt = 'warm up the pipeline before the first user request';
    // Streams get two tokens, so the frames a stream lives on (tokens, and tokens-batch when lanes
    // overlap) run too, not only the end frame.
    const maxTokens = stream ? 2 : 1;
    const body = chat ? { model, messages: [{ role: 'user', content: prompt }], max_tokens: maxTokens, stream } : { model, prompt, max_tokens: maxTokens, stream };
    try {
      const res = await fetch(`${gatewayUrl}/v1/${chat ? 'chat/completions' : 'completions'}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [httpHeaders.fairnessId]: WARM_UP_FAIRNESS_ID, ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
        body: JSON.stringify(body),
        signal: stop,
      });
      await res.arrayBuffer();
      if (res.ok) ok++;
      else failed++;
    } catch {
      if (signal?.aborted) throw signal.reason;
      failed++;
    }
  };
  // A failure says the cluster is not serving yet: the first one ends the warm-up (the caller reports it).
  const lane = async (): Promise<void> => {
    while (next < requests && failed === 0 && !stop.aborted) await one(next++);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, requests)) }, lane));
  return { ok, failed, ms: performance.now() - started };
}
