import type { InvariantResult } from '@sluice/report';
import type { ServiceBooks } from '../books/service-books.js';

/** Each service's books over the run (one per service; workers summed over their processes). */
export interface StageBooks {
  readonly gateway: ServiceBooks;
  readonly admission: ServiceBooks;
  readonly flowController: ServiceBooks;
  readonly router: ServiceBooks;
  readonly worker: ServiceBooks;
}

type Ok = Extract<ServiceBooks, { ok: true }>;

/** Gateway outcome reasons only admission decides (docs/behaviour.md §2). */
const ADMISSION_REJECTIONS = ['insufficient_tokens', 'rejected_by_policy', 'ttft_over_budget', 'all_workers_busy'];
/** Gateway rejections only flow control decides at arrival (its enqueue outcomes carry the same names). */
const FLOW_REJECTIONS = ['flow_capacity', 'too_many_flows', 'pool_saturated'];

const MIGRATIONS = 'sluice_migrations_total';
/**
 * Flow control's arrivals and queue exits over all flows: the per-flow histograms lose a flow's
 * counts when it is forgotten (flowController.flowGCTimeout, maxFlows), these keep them.
 */
const ENQUEUED = 'sluice_flow_arrivals_total';
const LEFT_QUEUE = 'sluice_flow_queue_exits_total';

interface Check {
  readonly what: string;
  readonly needs: readonly (keyof StageBooks)[];
  /** The two sides: the later stage's count may not exceed what was handed to it (or the reverse, as named). */
  readonly sides: (b: Record<keyof StageBooks, Ok>) => { readonly left: [string, number]; readonly right: [string, number] };
}

/**
 * (c) The stages' books agree, as far as their /metrics allow. Under faults the books need not be
 * equal (a request is re-submitted and counted again; a frame is lost after the work was done),
 * but each of these inequalities holds whatever is killed, paused, delayed or dropped, because a
 * stage can only count what some earlier stage sent it, and the gateway can only report what a
 * stage decided. Without faults each is an equality, so the surplus (+n) is shown. A check that
 * needs a stage that was restarted (its counters started again) is skipped, and says so.
 *
 * - admission decisions ≤ gateway received + migrations (re-submissions may enter at admission)
 * - flow arrivals ≤ admission admitted + migrations
 * - worker completions ≤ router decisions (a worker serves only what was routed to it; a request
 *   an instance refused is routed again, a second decision, so decisions are not compared with
 *   what flow control dispatched)
 * - gateway completed ≤ worker completions (every completion reported was finished by a worker;
 *   the surplus is work finished for requests the gateway had already ended or re-submitted)
 * - gateway rejections for admission reasons ≤ admission's rejections; for flow capacity and
 *   saturation ≤ flow control's; TTL expiries ≤ flow control's (a rejection the gateway reports
 *   was decided by that stage; one decided whose frame was lost ends another way)
 *
 * Duplicated messages must not break them: a stage serves only the current attempt of a live
 * request (docs/architecture.md, "Faults"), so a duplicate must not be counted twice.
 */
const CHECKS: readonly Check[] = [
  {
    what: 'admission decisions ≤ gateway received + migrations',
    needs: ['gateway', 'admission'],
    sides: (b) => ({
      left: ['admission decided', b.admission.count('sluice_admission_decisions_total')],
      right: ['gateway received + migrations', b.gateway.count('sluice_requests_received_total') + b.gateway.count(MIGRATIONS)],
    }),
  },
  {
    what: 'flow arrivals ≤ admission admitted + migrations',
    needs: ['gateway', 'admission', 'flowController'],
    sides: (b) => ({
      left: ['flow control received', b.flowController.count(ENQUEUED)],
      right: ['admission admitted + migrations', b.admission.count('sluice_admission_decisions_total', { decision: 'admit' }) + b.gateway.count(MIGRATIONS)],
    }),
  },
  {
    // Every request a worker finished, whatever its finished_reason (length, abort, error), was routed to it.
    what: 'worker completions ≤ router decisions',
    needs: ['router', 'worker'],
    sides: (b) => ({ left: ['workers completed', b.worker.count('vllm:request_success_total')], right: ['router decided', b.router.count('sluice_router_decisions_total')] }),
  },
  {
    what: 'gateway completed ≤ worker completions',
    needs: ['gateway', 'worker'],
    sides: (b) => ({ left: ['gateway completed', b.gateway.count('sluice_requests_total', { outcome: 'completed' })], right: ['workers completed', b.worker.count('vllm:request_success_total', { finished_reason: 'length' })] }),
  },
  {
    what: "gateway's admission rejections ≤ admission's",
    needs: ['gateway', 'admission'],
    sides: (b) => ({
      left: ['gateway rejected for admission', b.gateway.count('sluice_requests_total', { reason: ADMISSION_REJECTIONS })],
      right: ['admission rejected', b.admission.count('sluice_admission_decisions_total', { decision: 'reject' })],
    }),
  },
  {
    what: "gateway's flow rejections ≤ flow control's",
    needs: ['gateway', 'flowController'],
    sides: (b) => ({
      left: ['gateway rejected for flow', b.gateway.count('sluice_requests_total', { reason: FLOW_REJECTIONS })],
      right: ['flow control rejected', b.flowController.count(ENQUEUED, { outcome: FLOW_REJECTIONS })],
    }),
  },
  {
    what: "gateway's TTL expiries ≤ flow control's",
    needs: ['gateway', 'flowController'],
    sides: (b) => ({
      left: ['gateway ttl_expired', b.gateway.count('sluice_requests_total', { reason: 'ttl_expired' })],
      right: ['flow control ttl_expired', b.flowController.count(LEFT_QUEUE, { outcome: 'ttl_expired' })],
    }),
  },
];

export function stageBooksInvariant(books: StageBooks): InvariantResult {
  const details: string[] = [];
  let failed = false;
  let checked = 0;
  for (const check of CHECKS) {
    const missing = check.needs.map((s) => books[s]).find((b): b is Extract<ServiceBooks, { ok: false }> => !b.ok);
    if (missing) {
      details.push(`– ${check.what}: skipped (${missing.why})`);
      continue;
    }
    const { left, right } = check.sides(books as Record<keyof StageBooks, Ok>);
    const holds = left[1] <= right[1];
    checked++;
    failed ||= !holds;
    details.push(`${holds ? '✓' : '✗'} ${left[0]} ${left[1]} ${holds ? '≤' : '>'} ${right[0]} ${right[1]}${holds && left[1] < right[1] ? ` (+${right[1] - left[1]})` : ''}`);
  }
  return {
    id: 'stage-books',
    title: "the stages' books agree: no stage counted more than was handed to it",
    status: failed ? 'fail' : checked === 0 ? 'skipped' : 'pass',
    details,
  };
}
