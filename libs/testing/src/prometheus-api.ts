/**
 * The Prometheus HTTP API as a test reads it: an instant query (`/api/v1/query`) whose vector
 * comes back as labels and numbers.
 */

export interface PromSample {
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

interface QueryResponse {
  readonly status: 'success' | 'error';
  readonly error?: string;
  readonly data?: { readonly resultType: string; readonly result: readonly { metric: Record<string, string>; value: [number, string] }[] };
}

/** Evaluates a PromQL expression now; throws on an API error or a non-vector result. */
export async function promQuery(baseUrl: string, expr: string): Promise<PromSample[]> {
  const res = await fetch(`${baseUrl}/api/v1/query?${new URLSearchParams({ query: expr }).toString()}`);
  const body = (await res.json()) as QueryResponse;
  if (body.status !== 'success' || !body.data) throw new Error(`Prometheus query ${expr} failed (${res.status}): ${body.error ?? 'no data'}`);
  if (body.data.resultType !== 'vector') throw new Error(`Prometheus query ${expr}: expected a vector, got ${body.data.resultType}`);
  return body.data.result.map((r) => ({ labels: r.metric, value: Number(r.value[1]) }));
}

/** The single value of an aggregating query (`sum(...)`); 0 when it matches nothing yet. */
export async function promScalar(baseUrl: string, expr: string): Promise<number> {
  const samples = await promQuery(baseUrl, expr);
  if (samples.length > 1) throw new Error(`Prometheus query ${expr}: expected one sample, got ${samples.length}`);
  return samples[0]?.value ?? 0;
}
