import { sendStamp } from '@sluice/bus';
import { httpHeaders, priorityOf, type SluiceAnswerExtension } from '@sluice/contracts';
import { schedulingHeadersOf, type WorkloadRequest } from '@sluice/workload';
import { endingOf, reasonOfErrorAnswer, traceIdOfAnswer, type Ending } from './outcome-of-answer.js';
import type { RunRecord } from '@sluice/metrics';
import { sseData } from './sse-reader.js';

/**
 * Which request headers go with each request. `sluice`: the client's tenant, SLO class and TTFT
 * target, and the asks only sluice's gateway answers (stage timings at the end of the stream, the
 * send stamp its hop profile reads). `openai`: none of them, as a plain OpenAI client sends, for an
 * endpoint that is not sluice's (`sluice run --target`): a server that acted on them (an Endpoint
 * Picker reads the fairness header) or a proxy that refused them would change what is measured,
 * so they go there only when asked (`--sluice-headers`).
 */
export type RequestHeaders = 'sluice' | 'openai';

export interface LoadClientOptions {
  /** `http://host:port` of the server, without `/v1`: sluice's gateway, or a `--target`. */
  readonly gateway: string;
  readonly model: string;
  /** Default `sluice`. */
  readonly headers?: RequestHeaders;
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
 * answer (or none), the run goes on: the real requests report an unreachable gateway. `path`: a
 * route the server has (sluice's `/healthz`; any OpenAI server's `/v1/models`).
 */
export async function warmUpClient(gateway: string, path = '/healthz', apiKey?: string): Promise<void> {
  try {
    const res = await fetch(`${gateway}${path}`, apiKey === undefined ? {} : { headers: { [httpHeaders.authorization]: `Bearer ${apiKey}` } });
    await res.body?.cancel();
  } catch {
    // Reported by the run's own requests.
  }
}

/** Backoff before retry n (0-based): uniform in [0, min(cap, base·2^n)] ("full jitter"). */
const BACKOFF_BASE_MS = 100;
export const BACKOFF_CAP_MS = 5_000;

/** The headers of one attempt: sluice's own only for sluice's gateway (RequestHeaders). */
function headersOf(request: WorkloadRequest, options: LoadClientOptions): Record<string, string> {
  const auth: Record<string, string> = options.apiKey === undefined ? {} : { [httpHeaders.authorization]: `Bearer ${options.apiKey}` };
  if (options.headers === 'openai') return { 'content-type': 'application/json', ...auth };
  return {
    'content-type': 'application/json',
    ...schedulingHeadersOf(request),
    [httpHeaders.reportTimings]: '1',
    // The gateway times the send itself when it shares this host's clock (the twin's hop profiles read it).
    [httpHeaders.sentAt]: sendStamp(),
    ...auth,
  };
}

/**
 * Sends one workload request as a real client would: token-id prompt, exact output length
 * (`ignore_eos`, which vLLM, SGLang and Dynamo honour), streaming, and for sluice's gateway the
 * client's tenant, SLO class and TTFT target in the scheduling headers. Measures on the client side
 * (every token's arrival, the end) from the request's *scheduled* time, and reads the stage timings
 * from the stream's last chunk where the server sends them. Never throws: every way a request can
 * end becomes a record.
 */
export async function sendRequest(request: WorkloadRequest, options: LoadClientOptions): Promise<RunRecord> {
  const base = {
    id: `r${request.index}`,
    fairnessId: request.fairnessId,
    sloClass: request.sloClass,
    priority: priorityOf(request.sloClass),
    ...(request.slo === undefined ? {} : { slo: request.slo }),
  };
  // Latencies count from when the request was due, not from when this client got round to it: a
  // client behind its schedule (a busy event loop, a long GC) would otherwise take its own delay
  // out of every latency it measures, the coordinated omission of closed-loop load generators
  // (tools/bench/live/load-generator.mjs does the same). The run loop may send a request a little
  // early (it does not sleep under half a ms, and Node's timers run on a whole-ms clock): such a
  // request counts from its actual send, so no latency is shorter than the server made it.
  const firstSendMs = options.now();
  const arrivalMs = Math.min(request.arrivalMs, firstSendMs);
  const clientLagMs = firstSendMs - arrivalMs;
  for (let attempt = 1; ; attempt++) {
    let res: Response;
    try {
      res = await fetch(`${options.gateway}/v1/completions`, {
        method: 'POST',
        headers: headersOf(request, options),
        // include_usage: the gateway's own count of the tokens it sent, checked against the client's (sluice chaos).
        body: JSON.stringify({ model: options.model, prompt: Array.from(request.inputTokens), max_tokens: request.maxTokens, ignore_eos: true, stream: true, stream_options: { include_usage: true } }),
      });
    } catch {
      // The gateway could not be reached at all.
      return { ...base, arrivalMs, clientLagMs, endMs: options.now(), outputTokens: 0, outcome: 'failed', reason: 'connection_error', stage: 'gateway', status: 0, attempts: attempt };
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
      return { ...base, ...named, arrivalMs, clientLagMs, endMs: options.now(), outputTokens: 0, status: res.status, attempts: attempt, ...ending };
    }
    return readStream(res, { ...base, ...named, arrivalMs, clientLagMs, attempts: attempt }, options.now);
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
