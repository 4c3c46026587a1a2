import type { RunRecord } from '@sluice/metrics';
import type { InvariantResult } from '@sluice/report';

/**
 * (e) The share of requests the system took on and did not finish stays within the scenario's
 * `expect.maxFailedShare`. That is `failed` and `dropped`, whatever the reason (a lost worker, a
 * broken stream, a queue evicted at shutdown); `rejected` is not counted: a 429 from admission or
 * flow control is the system declining load as designed, not losing it.
 */
export function failedShareInvariant(records: readonly RunRecord[], maxFailedShare: number): InvariantResult {
  const failed = records.filter((r) => r.outcome === 'failed').length;
  const dropped = records.filter((r) => r.outcome === 'dropped').length;
  const share = records.length === 0 ? 0 : (failed + dropped) / records.length;
  const holds = share <= maxFailedShare;
  const pct = (v: number) => `${(100 * v).toFixed(1)}%`;
  return {
    id: 'failed-share',
    title: 'failed + dropped share ≤ expect.maxFailedShare',
    status: holds ? 'pass' : 'fail',
    details: [`failed ${failed} + dropped ${dropped} of ${records.length} = ${pct(share)} ${holds ? '≤' : '>'} ${pct(maxFailedShare)}`],
  };
}
