import type { RunRecord } from '@sluice/metrics';
import type { InvariantResult } from '@sluice/report';
import { serviceBooks, type ProcessScrape } from '../books/service-books.js';
import { clientOutcomesInvariant } from './client-outcomes.invariant.js';
import { deadlineInvariant } from './deadline.invariant.js';
import { failedShareInvariant } from './failed-share.invariant.js';
import { gatewayBooksInvariant } from './gateway-books.invariant.js';
import { stageBooksInvariant } from './stage-books.invariant.js';
import { usageTokensInvariant } from './usage-tokens.invariant.js';

export interface InvariantInputs {
  readonly records: readonly RunRecord[];
  readonly expectedRequests: number;
  /** Every process's /metrics before the run (after the warm-up) and after it. */
  readonly before: readonly ProcessScrape[];
  readonly after: readonly ProcessScrape[];
  readonly requestTimeoutMs: number;
  /** The load client's longest backoff before a retry. */
  readonly retryBackoffCapMs: number;
  readonly maxFailedShare: number;
}

/** Slack on the deadline for what lies outside the gateway's timer (connection, two event loops, a late timer). */
export const DEADLINE_MARGIN_MS = 1_000;

/** Every invariant of a chaos run, in the order the report lists them. */
export function checkInvariants(inputs: InvariantInputs): InvariantResult[] {
  const { records, before, after } = inputs;
  const books = {
    gateway: serviceBooks('gateway', before, after),
    admission: serviceBooks('admission', before, after),
    flowController: serviceBooks('flow-controller', before, after),
    router: serviceBooks('router', before, after),
    worker: serviceBooks('worker', before, after),
  };
  return [
    clientOutcomesInvariant(records, inputs.expectedRequests),
    gatewayBooksInvariant(books.gateway, records),
    usageTokensInvariant(records),
    stageBooksInvariant(books),
    deadlineInvariant(records, { requestTimeoutMs: inputs.requestTimeoutMs, marginMs: DEADLINE_MARGIN_MS, retryBackoffCapMs: inputs.retryBackoffCapMs }),
    failedShareInvariant(records, inputs.maxFailedShare),
  ];
}
