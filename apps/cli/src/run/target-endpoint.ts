import { httpHeaders } from '@sluice/contracts';
import type { RunRecord } from '@sluice/metrics';

/** `/v1/models` answers within this, or the model is not looked up there. */
const MODELS_TIMEOUT_MS = 5_000;

/**
 * The base URL of an OpenAI-compatible endpoint as `--target` names it: `http://host:8000` or
 * `http://host:8000/v1` (how vLLM, llm-d and Dynamo print theirs), a trailing slash or not. The
 * client appends `/v1/completions`. Undefined, with why, for anything but an http(s) URL.
 */
export function targetBaseUrl(text: string): { readonly url: string } | { readonly problem: string } {
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    return { problem: `"${text}" is not a URL (e.g. http://127.0.0.1:8000 or http://127.0.0.1:8000/v1)` };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return { problem: `"${text}": only http and https endpoints` };
  if (parsed.search !== '' || parsed.hash !== '') return { problem: `"${text}": a base URL has no query or fragment` };
  const path = parsed.pathname.replace(/\/+$/, '').replace(/\/v1$/, '');
  return { url: `${parsed.origin}${path}` };
}

/**
 * The model to send to a target: `--target-model` when given; else the one model the endpoint's
 * `/v1/models` lists, or the config's model when it is among several. A target that lists several
 * and not the config's is refused with the names it lists (a run sending a model the server does
 * not serve would fail every request). An endpoint that does not answer `/v1/models` gets the
 * config's model, and its requests report what became of it.
 */
export async function targetModel(url: string, given: string | undefined, configModel: string, apiKey: string | undefined): Promise<{ readonly model: string } | { readonly problem: string }> {
  if (given !== undefined) return { model: given };
  const served = await servedModels(url, apiKey);
  if (served === undefined || served.length === 0) return { model: configModel };
  if (served.includes(configModel)) return { model: configModel };
  if (served.length === 1) return { model: served[0]! };
  return { problem: `--target-model: ${url}/v1/models lists ${served.join(', ')}, not ${configModel}: name the one to send` };
}

async function servedModels(url: string, apiKey: string | undefined): Promise<string[] | undefined> {
  try {
    const res = await fetch(`${url}/v1/models`, { signal: AbortSignal.timeout(MODELS_TIMEOUT_MS), ...(apiKey === undefined ? {} : { headers: { [httpHeaders.authorization]: `Bearer ${apiKey}` } }) });
    if (!res.ok) {
      await res.body?.cancel();
      return undefined;
    }
    const body = (await res.json()) as { data?: { id?: unknown }[] };
    return Array.isArray(body.data) ? body.data.flatMap((m) => (typeof m.id === 'string' ? [m.id] : [])) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What a target run's report leaves out because the endpoint did not give it, each with why. Read
 * from the records, not assumed from the flags: a sluice gateway reached with `--sluice-headers`
 * does send its stage timings, and then they are in the report.
 */
export function absentFromTarget(records: readonly RunRecord[], engineWhy: string | undefined): string[] {
  const absent: string[] = [];
  if (!records.some((r) => r.timings !== undefined)) {
    absent.push('stage timings and serving instance: no answer carried sluice’s `sluice` extension (only sluice’s gateway sends it, when asked with x-sluice-report-timings: `--sluice-headers`)');
  }
  if (engineWhy !== undefined) absent.push(`engine counters: ${engineWhy}`);
  return absent;
}
