import { z } from 'zod';
import type { StageTimings } from './inference-request.js';
import { ChatSamplingFields, CompletionSamplingFields, MaxTokensSchema } from './openai-sampling.js';
import type { Stage } from './outcomes.js';

/**
 * The OpenAI-compatible HTTP API the gateway serves. The fields sluice acts on are checked, and
 * the sampling parameters within the ranges a real vLLM takes (openai-sampling.ts), though a
 * synthetic model has nothing to sample; fields neither knows are accepted and ignored.
 */
const MaxTokens = MaxTokensSchema;
const Stream = z.boolean().optional();
const StreamOptions = z.object({ include_usage: z.boolean().optional() }).optional();

/** Token ids live in [0, vocabulary size); 128000 matches the workload generator's range. */
export const VOCABULARY_SIZE = 128_000;
const TokenId = z.number().int().min(0).max(VOCABULARY_SIZE - 1);

export const CompletionRequestSchema = z.looseObject({
  model: z.string().min(1),
  prompt: z.union([z.string(), z.array(TokenId).min(1)], {
    error: 'expected a string or a non-empty array of token ids (integers in [0, 128000))',
  }),
  max_tokens: MaxTokens.default(16),
  stream: Stream,
  stream_options: StreamOptions,
  ignore_eos: z.boolean().optional(),
  ...CompletionSamplingFields,
});
export type CompletionRequest = z.infer<typeof CompletionRequestSchema>;

const TextPart = z.looseObject({ type: z.literal('text'), text: z.string() });
export const ChatMessageSchema = z.looseObject({
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool']),
  content: z.union([z.string(), z.array(TextPart)]).nullable(),
});
export type ChatMessage = z.infer<typeof ChatMessageSchema>;

export const ChatCompletionRequestSchema = z.looseObject({
  model: z.string().min(1),
  messages: z.array(ChatMessageSchema).min(1),
  max_tokens: MaxTokens.optional(),
  max_completion_tokens: MaxTokens.optional(),
  stream: Stream,
  stream_options: StreamOptions,
  ignore_eos: z.boolean().optional(),
  ...ChatSamplingFields,
});
export type ChatCompletionRequest = z.infer<typeof ChatCompletionRequestSchema>;

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** OpenAI's breakdown of the prompt (vLLM sends it too): the tokens served from the prefix cache. */
  prompt_tokens_details?: { cached_tokens: number };
}

export type FinishReason = 'length' | 'stop' | null;

export interface CompletionChoice {
  index: number;
  text: string;
  logprobs: null;
  finish_reason: FinishReason;
}

export interface Completion {
  id: string;
  object: 'text_completion';
  created: number;
  model: string;
  choices: CompletionChoice[];
  usage?: Usage | null;
}

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: { index: number; message: { role: 'assistant'; content: string }; logprobs: null; finish_reason: FinishReason }[];
  usage: Usage;
}

export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: { index: number; delta: { role?: 'assistant'; content?: string }; logprobs: null; finish_reason: FinishReason }[];
  usage?: Usage | null;
}

/** One model, as `GET /v1/models/{id}` answers it and `GET /v1/models` lists it. */
export interface Model {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
}

export interface ModelList {
  object: 'list';
  data: Model[];
}

/** OpenAI's error envelope. */
export interface ApiError {
  error: { message: string; type: string; param: string | null; code: string | number | null };
}

/**
 * sluice's extension to an answer, sent when the request carries `x-sluice-report-timings: 1`
 * (a load generator's request): where and how the request was served. In a stream it comes as one
 * last chunk with no choices before `[DONE]` (the shape of OpenAI's usage chunk); in a
 * non-streaming answer, as a `sluice` field of the body. Other clients never see it.
 */
export interface SluiceAnswerExtension {
  readonly instance: string;
  readonly priority: number;
  /** Per-stage durations in ms: admission, flow queue, routing, worker queue, prefill, decode. */
  readonly timings: StageTimings;
  /**
   * The process (the worker: the instance) that held the request at each stage, as their `held`
   * frames told the gateway, for the attempt that answered: with replicas, which one served it.
   */
  readonly holders: Readonly<Partial<Record<Stage, string>>>;
}
