import { z } from 'zod';

/**
 * The sampling parameters of OpenAI's completion and chat requests, with the ranges vLLM's
 * `SamplingParams._verify_args` enforces (vllm-project/vllm, vllm/sampling_params.py at
 * 00388f6573ccfcffad607b8c9ecdf341a4669ceb): a synthetic model samples nothing, but a value a real
 * server would refuse is refused here too, with a 400 naming the field, rather than served with a
 * 200 a client would take for "accepted". `null` is taken as "not given", as OpenAI takes it.
 */

/** vLLM's default `max_logprobs` (vllm/config/model.py): the most alternatives per token it returns. */
export const MAX_LOGPROBS = 20;

const finite = z.number({ error: 'expected a number' });
const inRange = (min: number, max: number) => finite.min(min, `must be in [${min}, ${max}]`).max(max, `must be in [${min}, ${max}]`);

/** Output tokens: at least one (vLLM: "max_tokens must be at least 1"). */
export const MaxTokensSchema = z.number({ error: 'expected an integer' }).int('expected an integer').min(1, 'must be at least 1');

/** Fields both endpoints share. */
export const SamplingFields = {
  temperature: inRange(0, 2).nullish(),
  top_p: finite.gt(0, 'must be in (0, 1]').max(1, 'must be in (0, 1]').nullish(),
  presence_penalty: inRange(-2, 2).nullish(),
  frequency_penalty: inRange(-2, 2).nullish(),
  /** vLLM's extensions, with its ranges. */
  repetition_penalty: finite.gt(0, 'must be greater than 0').nullish(),
  top_k: z.number().int('expected an integer').min(-1, 'must be 0 or -1 (off), or at least 1').nullish(),
  min_p: inRange(0, 1).nullish(),
  min_tokens: z.number().int('expected an integer').min(0, 'must be at least 0').nullish(),
  seed: z.number().int('expected an integer').nullish(),
  n: z.literal(1, { error: 'only n=1 is supported' }).nullish(),
} as const;

/** Completions: `logprobs` is how many alternatives per token; `best_of` would run several sequences and return one. */
export const CompletionSamplingFields = {
  ...SamplingFields,
  logprobs: z.number({ error: 'expected an integer' }).int('expected an integer').min(0, `must be in [0, ${MAX_LOGPROBS}]`).max(MAX_LOGPROBS, `must be in [0, ${MAX_LOGPROBS}]`).nullish(),
  best_of: z.literal(1, { error: 'only best_of=1 is supported (n is 1, and best_of must be at least n)' }).nullish(),
} as const;

/** Chat: `logprobs` is a switch and `top_logprobs` the count. */
export const ChatSamplingFields = {
  ...SamplingFields,
  logprobs: z.boolean({ error: 'expected true or false' }).nullish(),
  top_logprobs: z.number({ error: 'expected an integer' }).int('expected an integer').min(0, `must be in [0, ${MAX_LOGPROBS}]`).max(MAX_LOGPROBS, `must be in [0, ${MAX_LOGPROBS}]`).nullish(),
} as const;
