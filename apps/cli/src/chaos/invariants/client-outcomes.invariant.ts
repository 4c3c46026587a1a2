import type { RunRecord } from '@sluice/metrics';
import type { InvariantResult } from '@sluice/report';

/**
 * (a), the client's side: every request the workload generated has a record, and every record a
 * terminal outcome (an end time, not `in_flight`). The load client never throws, so a request
 * that vanished shows here as a missing or open record.
 */
export function clientOutcomesInvariant(records: readonly RunRecord[], expectedRequests: number): InvariantResult {
  const details: string[] = [];
  const ids = new Set(records.map((r) => r.id));
  if (records.length !== expectedRequests) details.push(`${records.length} records for ${expectedRequests} requests`);
  if (ids.size !== records.length) details.push(`${records.length - ids.size} request ids recorded twice`);
  const open = records.filter((r) => r.outcome === 'in_flight' || r.endMs === undefined);
  if (open.length > 0) details.push(`${open.length} requests never ended: ${sample(open.map((r) => r.id))}`);
  const failed = details.length > 0;
  if (!failed) details.push(`${records.length} of ${expectedRequests} requests ended, each once`);
  return { id: 'client-outcomes', title: 'every request ended with exactly one outcome (client)', status: failed ? 'fail' : 'pass', details };
}

/** The first few of a list, for a detail line. */
export function sample(items: readonly string[], max = 5): string {
  return items.length <= max ? items.join(', ') : `${items.slice(0, max).join(', ')} and ${items.length - max} more`;
}
