import type { RunRecord } from '@sluice/metrics';
import type { InvariantResult } from '@sluice/report';
import { sample } from './client-outcomes.invariant.js';

/**
 * (b) Every completed stream delivered as many tokens as its usage chunk says the gateway sent
 * (`usage.completion_tokens`, asked for with `stream_options.include_usage`): a token lost or
 * doubled on the way, e.g. across a migration, shows as a difference. A stream that ended in an
 * error carries no usage, so only completed ones are compared.
 */
export function usageTokensInvariant(records: readonly RunRecord[]): InvariantResult {
  const completed = records.filter((r) => r.outcome === 'completed');
  const mismatched = completed.filter((r) => r.usageCompletionTokens !== r.outputTokens);
  const details =
    mismatched.length === 0
      ? [`${completed.length} completed streams: tokens received = usage.completion_tokens`]
      : [
          `${mismatched.length} of ${completed.length} completed streams differ: ${sample(
            mismatched.map((r) => `${r.id} got ${r.outputTokens}, usage ${r.usageCompletionTokens ?? 'missing'}`),
          )}`,
        ];
  return { id: 'usage-tokens', title: 'tokens received = usage.completion_tokens of each completed stream', status: mismatched.length === 0 ? 'pass' : 'fail', details };
}
