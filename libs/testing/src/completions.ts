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
