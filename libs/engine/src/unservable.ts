import type { DropReason, EngineRequest } from './engine.types.js';
import { blocksFor } from './sequence.js';

export interface ServingLimits {
  readonly maxModelLen: number;
  readonly totalKvBlocks: number;
  readonly blockSize: number;
}

export interface Unservable {
  readonly reason: DropReason;
  readonly message: string;
}

/**
 * Why this instance could never serve the request, or undefined if it can. The first four rules
 * are docs/behaviour.md §1's ("Unservable requests"), checked in its order.
 */
export function whyUnservable({ inputTokens: input, maxTokens }: EngineRequest, limits: ServingLimits): Unservable | undefined {
  const { maxModelLen, totalKvBlocks, blockSize } = limits;
  if (maxTokens < 0) return { reason: 'negative_max_tokens', message: `max_tokens must not be negative (got ${maxTokens})` };
  // sluice: vLLM refuses an empty prompt; with nothing to prefill there is no step to sample from.
  if (input < 1) return { reason: 'empty_prompt', message: `the prompt must have at least 1 token (got ${input})` };
  if (input >= maxModelLen) return { reason: 'input_too_long', message: `the prompt has ${input} tokens; this model's context is ${maxModelLen} tokens` };
  if (input + maxTokens > maxModelLen) {
    return { reason: 'exceeds_max_model_len', message: `prompt (${input}) + max_tokens (${maxTokens}) = ${input + maxTokens} tokens exceeds this model's context of ${maxModelLen} tokens` };
  }
  const promptBlocks = blocksFor(input, blockSize);
  if (promptBlocks > totalKvBlocks) {
    return { reason: 'exceeds_kv_capacity', message: `the prompt needs ${promptBlocks} KV blocks; this instance has ${totalKvBlocks}` };
  }
  // sluice: the last decode step holds KV for input + maxTokens − 1 tokens. A request that needs
  // more blocks than exist would preempt itself forever (vLLM avoids it by refusing to start when
  // max_model_len exceeds the KV capacity); with the real profiles this rule never fires.
  const peakBlocks = blocksFor(input + Math.max(maxTokens, 1) - 1, blockSize);
  if (peakBlocks > totalKvBlocks) {
    return { reason: 'exceeds_kv_capacity', message: `prompt (${input}) + max_tokens (${maxTokens}) needs ${peakBlocks} KV blocks at its last token; this instance has ${totalKvBlocks}` };
  }
  return undefined;
}
