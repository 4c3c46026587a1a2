import type { IncomingHttpHeaders } from 'node:http';
import type { ZodError } from 'zod';
import {
  ChatCompletionRequestSchema,
  CompletionRequestSchema,
  DEFAULT_SLO_CLASS,
  SloClassSchema,
  describeZodError,
  httpHeaders,
  type SloClass,
} from '@sluice/contracts';
import type { ApiKind } from './exchange.js';
import { renderChat } from './prompt.js';
import { tokenize } from './tokenizer.js';

/** A request the gateway can send down the pipeline, or why it cannot (a 400 naming the field). */
export type ParsedRequest =
  | {
      readonly ok: true;
      readonly model: string;
      readonly tokenIds: number[];
      readonly maxTokens: number;
      readonly stream: boolean;
      readonly includeUsage: boolean;
      readonly sloClass: SloClass;
      readonly fairnessId: string;
      /** The InferenceObjective named by `x-gateway-inference-objective`, if any. */
      readonly objective: string | undefined;
      readonly sloTtftMs: number | undefined;
    }
  | { readonly ok: false; readonly message: string; readonly param: string | null };

/** The one shared flow per priority of requests that name no tenant (docs/behaviour.md §3). */
export const DEFAULT_FAIRNESS_ID = 'default';

/** Output length when a chat request gives none (OpenAI's legacy completions default). */
export const DEFAULT_MAX_TOKENS = 16;

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export function parseInferenceRequest(kind: ApiKind, body: unknown, headers: IncomingHttpHeaders, models: readonly string[]): ParsedRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ok: false, message: 'request body must be a JSON object', param: null };
  }
  const parsedBody = parseBody(kind, body);
  if (!parsedBody.ok) return parsedBody;
  const { model, tokenIds, maxTokens, stream, includeUsage } = parsedBody;
  if (!models.includes(model)) {
    return { ok: false, message: `model: unknown model "${model}"; available: ${models.join(', ')}`, param: 'model' };
  }
  const sloHeader = header(headers, httpHeaders.sloClass);
  const slo = SloClassSchema.safeParse(sloHeader ?? DEFAULT_SLO_CLASS);
  if (!slo.success) {
    return { ok: false, message: `header ${httpHeaders.sloClass}: "${sloHeader}" is not one of ${SloClassSchema.options.join(', ')}`, param: null };
  }
  const ttftHeader = header(headers, httpHeaders.sloTtftMs);
  const sloTtftMs = ttftHeader === undefined ? undefined : Number(ttftHeader);
  if (sloTtftMs !== undefined && !(sloTtftMs > 0)) {
    return { ok: false, message: `header ${httpHeaders.sloTtftMs}: "${ttftHeader}" is not a positive number of milliseconds`, param: null };
  }

  return {
    ok: true,
    model,
    tokenIds,
    maxTokens,
    stream,
    includeUsage,
    sloClass: slo.data,
    fairnessId: header(headers, httpHeaders.fairnessId) ?? DEFAULT_FAIRNESS_ID,
    objective: header(headers, httpHeaders.objective),
    sloTtftMs,
  };
}

type BodyFields = { ok: true; model: string; tokenIds: number[]; maxTokens: number; stream: boolean; includeUsage: boolean };

/** The body's own fields, checked against the OpenAI schema of its endpoint. */
function parseBody(kind: ApiKind, body: object): BodyFields | { ok: false; message: string; param: string | null } {
  const invalid = (error: ZodError) => {
    const first = error.issues[0];
    // OpenAI's `param` names the top-level field; the message keeps the full path.
    const param = first?.path[0];
    return { ok: false as const, message: describeZodError(error).join('; '), param: param === undefined ? null : String(param) };
  };
  if (kind === 'chat') {
    const result = ChatCompletionRequestSchema.safeParse(body);
    if (!result.success) return invalid(result.error);
    const data = result.data;
    return {
      ok: true,
      model: data.model,
      tokenIds: tokenize(renderChat(data.messages)),
      maxTokens: data.max_completion_tokens ?? data.max_tokens ?? DEFAULT_MAX_TOKENS,
      stream: data.stream ?? false,
      includeUsage: data.stream_options?.include_usage ?? false,
    };
  }
  const result = CompletionRequestSchema.safeParse(body);
  if (!result.success) return invalid(result.error);
  const data = result.data;
  return {
    ok: true,
    model: data.model,
    tokenIds: typeof data.prompt === 'string' ? tokenize(data.prompt) : data.prompt,
    maxTokens: data.max_tokens,
    stream: data.stream ?? false,
    includeUsage: data.stream_options?.include_usage ?? false,
  };
}
