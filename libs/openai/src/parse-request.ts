import type { ZodError } from 'zod';
import { ChatCompletionRequestSchema, CompletionRequestSchema, describeZodError } from '@sluice/contracts';
import type { ApiKind } from './exchange.js';
import { renderChat } from './prompt.js';
import { tokenize } from './tokenizer.js';

/** What a request's body asks for, or why it cannot be served (a 400 naming the field). */
export type ParsedBody =
  | {
      readonly ok: true;
      readonly model: string;
      readonly tokenIds: number[];
      /**
       * Output tokens asked for; undefined when a chat request names no length (neither
       * `max_tokens` nor `max_completion_tokens`): the caller applies vLLM's rule, libs/stages
       * `chatDefaultMaxTokens`. A completions request without one asks for 16.
       */
      readonly maxTokens: number | undefined;
      readonly stream: boolean;
      readonly includeUsage: boolean;
    }
  | { readonly ok: false; readonly message: string; readonly param: string | null };

/** A model served: its name and its context length (the prompt and output of one request). */
export interface ServedModel {
  readonly name: string;
  readonly maxModelLen: number;
}

/** The body, checked against the OpenAI schema of its endpoint and the models served. */
export function parseInferenceBody(kind: ApiKind, body: unknown, models: readonly ServedModel[]): ParsedBody {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ok: false, message: 'request body must be a JSON object', param: null };
  }
  const parsed = parseFields(kind, body);
  if (parsed.ok && !models.some((m) => m.name === parsed.model)) {
    return { ok: false, message: `model: unknown model "${parsed.model}"; available: ${models.map((m) => m.name).join(', ')}`, param: 'model' };
  }
  return parsed;
}

function parseFields(kind: ApiKind, body: object): ParsedBody {
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
      maxTokens: data.max_completion_tokens ?? data.max_tokens,
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
