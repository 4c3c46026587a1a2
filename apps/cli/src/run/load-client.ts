import { sendStamp } from '@sluice/bus';
import { httpHeaders, priorityOf, type SluiceAnswerExtension } from '@sluice/contracts';
import { schedulingHeadersOf, type WorkloadRequest } from '@sluice/workload';
import { endingOf, reasonOfErrorAnswer, traceIdOfAnswer, type Ending } from './outcome-of-answer.js';
import type { RunRecord } from '@sluice/metrics';
import { sseData } from './sse-reader.js';

export interface LoadClientOptions {
  /** `http://host:port` of the gateway. */
  readonly gateway: string;
  readonly model: string;
  /** Retries of a 503 answer (0 = none), with exponential backoff and full jitter. */
  readonly retries: number;
  /** Sent as `Authorization: Bearer` when the gateway wants API keys (gateway.auth; `OPENAI_API_KEY`). */
  readonly apiKey?: string;
  /** Milliseconds since the run started (the clock every record's times are on). */
  readonly now: () => number;
  /** The run's seeded random source (backoff jitter). */
  readonly random: () => number;
  readonly sleep: (ms: number) => Promise<void>;
}

/**
 * One cheap request before the run's clock starts. Node's fetch loads its HTTP client and opens a
 * connection on first use, which takes several ms of the event loop; without this the first
 * requests of an open-loop run would go out that much later than their arrival times. Whatever the
 * answer (or none), the run goes on: the real requests report an unreachable gateway.
 */
export async function warmUpClient(gateway: string): Promise<void> {
  try {
    const res = await fetch(`${gateway}/healthz`);
    await res.body?.cancel();
  } catch {
    // Reported by the run's own requests.
  }
}

/** Backoff before retry n (0-based): uniform in [0, min(cap, base·2^n)] ("full jitter"). */
const BACKOFF_BASE_MS = 100;
export const BACKOFF_CAP_MS = 5_000;

/**
 * Sends one workload request to the gateway as a real client would: token-id prompt, exact output
 * length, streaming, the client's tenant, SLO class and TTFT target in the scheduling headers. Measures on the
 * client side (send time, every token's arrival, the end) and reads the stage timings from the
 * stream's last chunk. Never throws: every way a request can end becomes a record.
 */
export async function sendRequest(request: WorkloadRequest, options: LoadClientOptions): Promise<RunRecord> {
  const base = {
    id: `r${request.index}`,
    fairnessId: request.fairnessId,
    sloClass: request.sloClass,
    priority: priorityOf(request.sloClass),
    ...(request.slo === undefined ? {} : { slo: request.slo }),
  };
  let arrivalMs = options.now();
  for (let attempt = 1; ; attempt++) {
    const sentAt = options.now();
    if (attempt === 1) arrivalMs = sentAt;
    let res: Response;
    try {
      res = await fetch(`${options.gateway}/v1/completions`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...schedulingHeadersOf(request),
          [httpHeaders.reportTimings]: '1',
          // The gateway times the send itself when it shares this host's clock (the twin's hop profiles read it).
          [httpHeaders.sentAt]: sendStamp(),
          ...(options.apiKey === undefined ? {} : { [httpHeaders.authorization]: `Bearer ${options.apiKey}` }),
        },
        // include_usage: the gateway's own count of the tokens it sent, checked against the client's (sluice chaos).
        body: JSON.stringify({ model: options.model, prompt: Array.from(request.inputTokens), max_tokens: request.maxTokens, ignore_eos: true, stream: true, stream_options: { include_usage: true } }),
      });
    } catch {
      // The gateway could not be reached at all.
      return { ...base, arrivalMs, endMs: options.now(), outputTokens: 0, outcome: 'failed', reason: 'connection_error', stage: 'gateway', status: 0, attempts: attempt };
    }
    if (res.status === 503 && attempt <= options.retries) {
      await res.body?.cancel();
      await options.sleep(options.random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (attempt - 1)));
      continue;
    }
    // The gateway's own id for it: what its stages (and the router's decision trace) call it.
    const gatewayId = res.headers.get(httpHeaders.requestId);
    const named = { ...(gatewayId === null ? {} : { gatewayRequestId: gatewayId }), ...traceIdOfAnswer(res.headers) };
    if (!res.ok) {
      const body: unknown = await res.json().catch(() => undefined);
      const ending = endingOf(reasonOfErrorAnswer(res.status, res.headers.get(httpHeaders.droppedReason), body));
      return { ...base, ...named, arrivalMs, endMs: options.now(), outputTokens: 0, status: res.status, attempts: attempt, ...ending };
    }
    return readStream(res, { ...base, ...named, arrivalMs, attempts: attempt }, options.now);
  }
}

async function readStream(res: Response, base: Omit<RunRecord, 'outputTokens' | 'outcome' | 'status'>, now: () => number): Promise<RunRecord> {
  const tokenTimesMs: number[] = [];
  let extension: SluiceAnswerExtension | undefined;
  let ending: Ending | undefined;
  let usageCompletionTokens: number | undefined;
  let cachedTokens: number | undefined;
  try {
    for await (const data of sseData(res.body!)) {
      if (data === '[DONE]') break;
      const chunk = JSON.parse(data) as { choices?: { text?: string }[]; sluice?: SluiceAnswerExtension; usage?: { completion_tokens?: number; prompt_tokens_details?: { cached_tokens?: number } }; error?: { code?: string } };
      if (chunk.error) ending = endingOf(chunk.error.code ?? 'stream_error');
      else if (chunk.sluice) extension = chunk.sluice;
      else if (chunk.usage) {
        usageCompletionTokens = chunk.usage.completion_tokens;
        cachedTokens = chunk.usage.prompt_tokens_details?.cached_tokens;
      }
      else if (chunk.choices?.[0]?.text) tokenTimesMs.push(now());
    }
  } catch {
    ending = { outcome: 'failed', reason: 'stream_broken' };
  }
  const endMs = now();
  const measured = {
    ...base,
    status: res.status,
    endMs,
    tokenTimesMs,
    outputTokens: tokenTimesMs.length,
    ...(tokenTimesMs.length > 0 ? { firstTokenMs: tokenTimesMs[0]! } : {}),
    ...(usageCompletionTokens === undefined ? {} : { usageCompletionTokens }),
    ...(cachedTokens === undefined ? {} : { cachedTokens }),
    ...(extension ? { instance: extension.instance, timings: extension.timings, priority: extension.priority } : {}),
  };
  return ending ? { ...measured, ...ending } : { ...measured, outcome: 'completed' };
}
