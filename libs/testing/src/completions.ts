import { httpHeaders, type SluiceAnswerExtension } from '@sluice/contracts';
/** The model every test cluster serves (the default profile's). */
export const TEST_MODEL = 'qwen3-14b';

export interface CompletionOptions {
  /** Extra request headers (tenant, SLO class, timings report), beside `content-type`. */
  readonly headers?: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
}

/** Splits a server-sent-events body into its `data:` payloads, in order (`[DONE]` included). */
export function sseData(text: string): string[] {
  return text
    .split('\n\n')
    .map((event) => event.trim())
    .filter((event) => event.startsWith('data: '))
    .map((event) => event.slice('data: '.length));
}

/**
 * POSTs an OpenAI completions request to a gateway, as a client would: `body` is the JSON body,
 * with `model` defaulting to the test model. The response is returned as is, whatever its status.
 */
export function postCompletion(gatewayUrl: string, body: Readonly<Record<string, unknown>>, options: CompletionOptions = {}): Promise<Response> {
  return fetch(`${gatewayUrl}/v1/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...options.headers },
    body: JSON.stringify({ model: TEST_MODEL, ...body }),
    ...(options.signal ? { signal: options.signal } : {}),
  });
}

/** A non-streamed completion's outcome with sluice's report: who held it, how long each stage took. */
export interface ReportedAnswer {
  readonly status: number;
  /** The error's `code` for an error answer. */
  readonly errorCode?: string;
  /** `sluice` of the answer (`x-sluice-report-timings: 1`): absent for an error answer. */
  readonly sluice?: SluiceAnswerExtension;
  /** When the answer was read, on this process's performance clock (ms). */
  readonly endedAtMs: number;
}

/** POSTs a non-streamed completion asking for sluice's report (`x-sluice-report-timings: 1`) and reads the answer. */
export async function reportedCompletion(gatewayUrl: string, body: Readonly<Record<string, unknown>>, headers: Readonly<Record<string, string>> = {}): Promise<ReportedAnswer> {
  const res = await postCompletion(gatewayUrl, body, { headers: { [httpHeaders.reportTimings]: '1', ...headers } });
  const json = (await res.json()) as { sluice?: SluiceAnswerExtension; error?: { code?: string | number | null } };
  const endedAtMs = performance.now();
  if (res.status === 200) return { status: res.status, ...(json.sluice ? { sluice: json.sluice } : {}), endedAtMs };
  return { status: res.status, ...(json.error?.code != null ? { errorCode: String(json.error.code) } : {}), endedAtMs };
}

/** The median gap between successive token chunks' arrivals (ms): one late chunk cannot move it, tokens sent in a burst bring it to 0. */
export function medianTokenGapMs(run: Pick<TimedStream, 'tokenArrivalsMs'>): number {
  const gaps = run.tokenArrivalsMs.slice(1).map((t, i) => t - run.tokenArrivalsMs[i]!);
  return [...gaps].sort((a, b) => a - b)[Math.floor(gaps.length / 2)] ?? 0;
}

/** A streamed completion read to its end, timed on the client, with the worker's own TTFT from the reported stage timings. */
export interface TimedStream {
  /** From `startedMs` to the first token chunk, and to the end of the stream ([DONE]), in ms. */
  readonly ttftMs: number;
  readonly e2eMs: number;
  /** Token chunks received. */
  readonly chunks: number;
  /** When each token chunk arrived, from `startedMs` (ms); chunks read together share a time. */
  readonly tokenArrivalsMs: readonly number[];
  /** The worker's TTFT from the reported stage timings: queue (delay and wait) plus prefill. */
  readonly workerTtftMs: number;
  /** The worker's decode from the reported stage timings: its first token to its last, on its own clock. */
  readonly workerDecodeMs: number;
}

/**
 * Reads a streamed completion asked with `x-sluice-report-timings: 1`, timing its first token and
 * its end from `startedMs` (performance clock, taken before the request was sent). Throws when the
 * stream ends without the stage timings.
 */
export async function readTimedStream(res: Response, startedMs: number): Promise<TimedStream> {
  const reader: ReadableStreamDefaultReader<Uint8Array> = res.body!.getReader();
  const decoder = new TextDecoder();
  const tokenArrivalsMs: number[] = [];
  let text = '';
  let scanned = 0; // how far `text` has been split into whole events
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const arrivedMs = performance.now() - startedMs;
    text += decoder.decode(value, { stream: true });
    const end = text.lastIndexOf('\n\n');
    if (end < scanned) continue;
    for (const data of sseData(text.slice(scanned, end + 2))) if (data.startsWith('{') && data.includes('"text"')) tokenArrivalsMs.push(arrivedMs);
    scanned = end + 2;
  }
  const e2eMs = performance.now() - startedMs;
  const events = sseData(text)
    .filter((data) => data.startsWith('{'))
    .map((data) => JSON.parse(data) as { choices: unknown[]; sluice?: { timings: { workerQueueMs: number; prefillMs: number; decodeMs: number } } });
  const timings = events.at(-1)?.sluice?.timings;
  if (!timings) throw new Error(`no stage timings at the end of the stream: ${text.slice(-300)}`);
  return {
    ttftMs: tokenArrivalsMs[0] ?? 0,
    e2eMs,
    chunks: events.filter((e) => e.choices.length > 0).length,
    tokenArrivalsMs,
    workerTtftMs: timings.workerQueueMs + timings.prefillMs,
    workerDecodeMs: timings.decodeMs,
  };
}
