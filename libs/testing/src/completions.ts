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
