import {
  SCHEDULING_ID_PATTERN,
  SCHEDULING_ID_RULE,
  SLO_TTFT_MS_MAX,
  SloClassSchema,
  httpHeaders,
  priorityOf,
  type OutcomeReason,
  type SloClass,
} from '@sluice/contracts';

/**
 * A request's priority (docs/behaviour.md §3 and §5): the priority of the InferenceObjective it
 * names (an unknown name gets 0, as in the Endpoint Picker); naming none, its SLO class's.
 */
export function priorityFor(objective: string | undefined, sloClass: SloClass, objectives: ReadonlyMap<string, number>): number {
  if (objective === undefined) return priorityOf(sloClass);
  return objectives.get(objective) ?? 0;
}

/**
 * Why the gateway answers 400 at once rather than passing the request on: its prompt and output
 * cannot fit the model's context, so no instance could ever serve it. Undefined when it fits.
 */
export function exceedsContext(inputTokens: number, maxTokens: number, model: { readonly name: string; readonly maxModelLen: number }): string | undefined {
  if (inputTokens + maxTokens <= model.maxModelLen) return undefined;
  return `prompt (${inputTokens} tokens) + max_tokens (${maxTokens}) exceeds the context of ${model.name} (${model.maxModelLen} tokens)`;
}

/** A completions request with no `max_tokens` generates 16, the OpenAI legacy default that vLLM keeps (`CompletionRequest.max_tokens`). */
export const COMPLETIONS_DEFAULT_MAX_TOKENS = 16;

/**
 * The output length of a chat request that gives neither `max_tokens` nor `max_completion_tokens`,
 * as vLLM decides it: the rest of the context (`max_model_len` − prompt tokens), no more than a
 * server-wide cap when one is set (`cap`, 0 = none; vLLM's `override_max_tokens`). vLLM's rule:
 * `get_max_tokens` in vllm-project/vllm vllm/entrypoints/utils.py (commit
 * 00fc88090e8c33cc3a21b9258bb2e0c09f34400a), the minimum of the context left, the request's or
 * default `max_tokens` (none for chat) and the override. At least 1: a prompt that fills the
 * context is then refused by `exceedsContext`, naming the lengths, as vLLM refuses it.
 */
export function chatDefaultMaxTokens(inputTokens: number, maxModelLen: number, cap: number): number {
  const rest = maxModelLen - inputTokens;
  return Math.max(1, cap > 0 ? Math.min(rest, cap) : rest);
}

/** The one shared flow per priority of requests that name no tenant (docs/behaviour.md §3). */
export const DEFAULT_FAIRNESS_ID = 'default';

/** What one request may cost, in tokens (gateway.limits; 0 = no cap but the model's context). */
export interface TokenLimits {
  readonly maxPromptTokens: number;
  readonly maxTokens: number;
}

/** A refusal the gateway gives before the request goes anywhere: its reason, what to tell the client, the field. */
export interface GatewayRefusal {
  readonly reason: Extract<OutcomeReason, 'unservable' | 'prompt_too_long' | 'max_tokens_too_large'>;
  readonly message: string;
  readonly param: string;
}

/**
 * The gateway's checks of what a well-formed request would cost, in order: the model's context (no
 * instance could serve it), then the configured caps, each refusal naming the limit and its value.
 * The live gateway and the twin's both ask this. Undefined: the request may go on.
 */
export function costRefusal(
  inputTokens: number,
  maxTokens: number,
  model: { readonly name: string; readonly maxModelLen: number },
  limits: TokenLimits,
): GatewayRefusal | undefined {
  const tooLong = exceedsContext(inputTokens, maxTokens, model);
  if (tooLong !== undefined) return { reason: 'unservable', message: tooLong, param: 'max_tokens' };
  if (limits.maxPromptTokens > 0 && inputTokens > limits.maxPromptTokens) {
    return { reason: 'prompt_too_long', message: `the prompt has ${inputTokens} tokens; this gateway takes at most ${limits.maxPromptTokens} (gateway.limits.maxPromptTokens)`, param: 'prompt' };
  }
  if (limits.maxTokens > 0 && maxTokens > limits.maxTokens) {
    return { reason: 'max_tokens_too_large', message: `max_tokens is ${maxTokens}; this gateway allows at most ${limits.maxTokens} (gateway.limits.maxTokens)`, param: 'max_tokens' };
  }
  return undefined;
}

/** The request headers that decide how it is scheduled and answered, as sent (undefined: absent). */
export interface RequestHeaderValues {
  readonly fairnessId: string | undefined;
  readonly objective: string | undefined;
  readonly sloClass: SloClass | undefined;
  readonly sloTtftMs: number | undefined;
  readonly reportTimings: boolean;
  /** When the client sent the request, on its host's monotonic clock (`x-sluice-sent-at`). */
  readonly sentAt?: { readonly atMs: number; readonly clock: string };
}

/** The headers' values, or the first bad one: its name and what to send instead (a 400). */
export type HeaderReading = ({ readonly ok: true } & RequestHeaderValues) | { readonly ok: false; readonly header: string; readonly message: string };

/** A decimal number of milliseconds: digits, optionally a fraction. No sign, exponent, hex or words. */
const DECIMAL_MS = /^[0-9]{1,10}(\.[0-9]{1,6})?$/;

/** `<ms>@<clock>`: a monotonic stamp in decimal ms and the id of the host clock it was read from. */
const SENT_AT = /^([0-9]{1,15}(?:\.[0-9]{1,6})?)@([A-Za-z0-9_-]{1,64})$/;

/**
 * Reads the gateway's request headers, each checked here so that a bad value is a 400 naming the
 * header, never a failure downstream (`x-slo-ttft-ms: 1e400` once passed as Infinity and came
 * back as a 503). `header` gives a header's value as received, undefined when absent.
 */
export function readRequestHeaders(header: (name: string) => string | undefined): HeaderReading {
  const bad = (name: string, value: string, expected: string): HeaderReading => ({ ok: false, header: name, message: `header ${name}: ${quoted(value)} ${expected}` });

  const fairnessId = header(httpHeaders.fairnessId);
  if (fairnessId !== undefined && !SCHEDULING_ID_PATTERN.test(fairnessId)) return bad(httpHeaders.fairnessId, fairnessId, `is not a tenant id: send ${SCHEDULING_ID_RULE}`);
  const objective = header(httpHeaders.objective);
  if (objective !== undefined && !SCHEDULING_ID_PATTERN.test(objective)) return bad(httpHeaders.objective, objective, `is not an objective name: send ${SCHEDULING_ID_RULE}`);

  const sloHeader = header(httpHeaders.sloClass);
  const slo = sloHeader === undefined ? undefined : SloClassSchema.safeParse(sloHeader);
  if (sloHeader !== undefined && !slo?.success) return bad(httpHeaders.sloClass, sloHeader, `is not an SLO class: send one of ${SloClassSchema.options.join(', ')}`);

  const ttftHeader = header(httpHeaders.sloTtftMs);
  let sloTtftMs: number | undefined;
  if (ttftHeader !== undefined) {
    sloTtftMs = DECIMAL_MS.test(ttftHeader) ? Number(ttftHeader) : Number.NaN;
    if (!(sloTtftMs > 0 && sloTtftMs <= SLO_TTFT_MS_MAX)) {
      return bad(httpHeaders.sloTtftMs, ttftHeader, `is not a TTFT objective: send a decimal number of milliseconds above 0 and at most ${SLO_TTFT_MS_MAX}, such as 500`);
    }
  }

  const timings = header(httpHeaders.reportTimings);
  if (timings !== undefined && timings !== '0' && timings !== '1') return bad(httpHeaders.reportTimings, timings, 'is not a switch: send 1 (report the stage timings) or 0');

  const sentHeader = header(httpHeaders.sentAt);
  const sent = sentHeader === undefined ? undefined : SENT_AT.exec(sentHeader);
  if (sentHeader !== undefined && !sent) return bad(httpHeaders.sentAt, sentHeader, 'is not a send stamp: send <monotonic ms>@<host clock id>, such as 81234.5@3f2a9c1d');

  return { ok: true, fairnessId, objective, sloClass: slo?.data, sloTtftMs, reportTimings: timings === '1', ...(sent ? { sentAt: { atMs: Number(sent[1]), clock: sent[2]! } } : {}) };
}

/** A header value as the client sent it, quoted, and cut short: a refusal must not echo 16 KB back. */
function quoted(value: string): string {
  const shown = value.length > 64 ? `${value.slice(0, 64)}…` : value;
  return JSON.stringify(shown);
}
