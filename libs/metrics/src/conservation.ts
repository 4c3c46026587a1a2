import type { RequestRecord } from './types.js';

const UNSPECIFIED = 'unspecified';

/** Counts per outcome; `byStage`/`byReason` keys are sorted, a missing stage or reason counts as 'unspecified'. */
export interface ConservationBooks {
  /** Requests that must be accounted for: `expectedRequests` if given, else the number of distinct ids. */
  readonly requests: number;
  readonly completed: number;
  readonly rejected: { readonly total: number; readonly byStage: Record<string, number>; readonly byReason: Record<string, number> };
  readonly dropped: { readonly total: number; readonly byReason: Record<string, number> };
  readonly failed: { readonly total: number; readonly byReason: Record<string, number> };
  readonly inFlight: number;
}

export interface ConservationCheck {
  readonly balanced: boolean;
  readonly requests: number;
  /** completed + rejected + dropped + failed + in flight. */
  readonly accounted: number;
  /** requests − accounted (positive: requests lost; negative: counted twice). */
  readonly difference: number;
  /** What does not add up, empty when balanced. */
  readonly problems: readonly string[];
}

function bump(counts: Record<string, number>, key: string | undefined): void {
  const k = key ?? UNSPECIFIED;
  counts[k] = (counts[k] ?? 0) + 1;
}

function sortedKeys(counts: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

const sum = (counts: Record<string, number>): number => Object.values(counts).reduce((s, x) => s + x, 0);

/**
 * Builds the books from the records. Pass `expectedRequests` (how many the workload offered) to
 * catch requests that left no record; without it, duplicate records of one id still unbalance.
 */
export function conservation(records: readonly RequestRecord[], expectedRequests?: number): ConservationBooks {
  const tally = new ConservationTally();
  for (const r of records) tally.add(r);
  return tally.books(expectedRequests ?? new Set(records.map((r) => r.id)).size);
}

/** `conservation`, counted one record at a time (a streamed run's records, as they settle). */
export class ConservationTally {
  private completed = 0;
  private inFlight = 0;
  private readonly rejectedByStage: Record<string, number> = {};
  private readonly rejectedByReason: Record<string, number> = {};
  private readonly droppedByReason: Record<string, number> = {};
  private readonly failedByReason: Record<string, number> = {};

  add(r: RequestRecord): void {
    switch (r.outcome) {
      case 'completed':
        this.completed++;
        break;
      case 'in_flight':
        this.inFlight++;
        break;
      case 'rejected':
        bump(this.rejectedByStage, r.stage);
        bump(this.rejectedByReason, r.reason);
        break;
      case 'dropped':
        bump(this.droppedByReason, r.reason);
        break;
      case 'failed':
        bump(this.failedByReason, r.reason);
        break;
    }
  }

  /** The books, `requests` being how many must be accounted for. */
  books(requests: number): ConservationBooks {
    const { rejectedByStage, rejectedByReason, droppedByReason, failedByReason } = this;
    return {
      requests,
      completed: this.completed,
      rejected: { total: sum(rejectedByReason), byStage: sortedKeys(rejectedByStage), byReason: sortedKeys(rejectedByReason) },
      dropped: { total: sum(droppedByReason), byReason: sortedKeys(droppedByReason) },
      failed: { total: sum(failedByReason), byReason: sortedKeys(failedByReason) },
      inFlight: this.inFlight,
    };
  }
}

/** Whether requests = completed + rejected + dropped + failed + in flight, and each breakdown sums to its total. */
export function checkConservation(books: ConservationBooks): ConservationCheck {
  const accounted = books.completed + books.rejected.total + books.dropped.total + books.failed.total + books.inFlight;
  const problems: string[] = [];
  if (accounted !== books.requests) problems.push(`requests ${books.requests} ≠ accounted ${accounted}`);
  const breakdowns: [string, number, Record<string, number>][] = [
    ['rejected.byStage', books.rejected.total, books.rejected.byStage],
    ['rejected.byReason', books.rejected.total, books.rejected.byReason],
    ['dropped.byReason', books.dropped.total, books.dropped.byReason],
    ['failed.byReason', books.failed.total, books.failed.byReason],
  ];
  for (const [name, total, counts] of breakdowns) {
    if (sum(counts) !== total) problems.push(`${name} sums to ${sum(counts)}, total is ${total}`);
  }
  return { balanced: problems.length === 0, requests: books.requests, accounted, difference: books.requests - accounted, problems };
}
