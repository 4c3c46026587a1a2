/**
 * Whether a request's prompt is prefilled on a dedicated prefill instance (remote) or on the
 * decode instance already chosen (local). Both peers decide on the same quantity, the prompt
 * tokens the chosen decode instance does not hold cached, and differ at the boundary and at zero:
 *
 * - `dynamo`: remote iff nonCached > maxLocalPrefillLength. ai-dynamo/dynamo
 *   `lib/llm/src/disagg_router.rs` @ 3454aa8ba87052802ffa26fee3c01ca1e888210d (`prefill_remote`:
 *   prefill_length − prefix_hit_length compared with `max_local_prefill_length`, strictly).
 * - `llm-d`: remote iff nonCached ≥ nonCachedTokens; a threshold of 0 or less disaggregates every
 *   request. llm-d/llm-d-inference-scheduler `pkg/plugins/profile/prefix_based_pd_decider.go` @
 *   278a3e44d51d36894c01d310cdca8fce234c5be0 (`disaggregate`: the hit is the decode endpoint's
 *   matched blocks × block size).
 * - `always`: every request is disaggregated (llm-d's `always-disagg-pd-decider`).
 */
export type PdDeciderRule =
  | { readonly kind: 'dynamo'; readonly maxLocalPrefillLength: number }
  | { readonly kind: 'llm-d'; readonly nonCachedTokens: number }
  | { readonly kind: 'always' };

export const PD_DECIDER_KINDS = ['dynamo', 'llm-d', 'always'] as const satisfies readonly PdDeciderRule['kind'][];

/** The prompt tokens the decode instance would have to compute: the prompt less its cached prefix. */
export function nonCachedTokens(inputTokens: number, cachedBlocks: number, blockSize: number): number {
  return Math.max(0, inputTokens - cachedBlocks * blockSize);
}

/** True: prefill on a prefill instance and transfer the KV blocks; false: prefill where it decodes. */
export function prefillRemotely(rule: PdDeciderRule, nonCached: number): boolean {
  switch (rule.kind) {
    case 'dynamo':
      return nonCached > rule.maxLocalPrefillLength;
    case 'llm-d':
      return rule.nonCachedTokens <= 0 || nonCached >= rule.nonCachedTokens;
    case 'always':
      return true;
  }
}
