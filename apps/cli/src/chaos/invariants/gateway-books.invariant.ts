import type { RunRecord } from '@sluice/metrics';
import type { InvariantResult } from '@sluice/report';
import type { ServiceBooks } from '../books/service-books.js';

const ID = 'gateway-books';
const TITLE = "the gateway's books balance: received = Σ terminal outcomes, none in flight, completed = client's completed";

/**
 * (a), the gateway's side, from its /metrics over the run: each request it received was counted
 * once at its terminal outcome (`sluice_requests_received_total` = Σ `sluice_requests_total`), none
 * is still open (`sluice_requests_in_flight` = 0), and it completed as many as the client saw
 * complete. Retries are new requests to the gateway, so they count on both sides alike. A gateway
 * started again during the run lost its counters: then this is skipped, not guessed.
 */
export function gatewayBooksInvariant(gateway: ServiceBooks, records: readonly RunRecord[]): InvariantResult {
  if (!gateway.ok) return { id: ID, title: TITLE, status: 'skipped', details: [`skipped: ${gateway.why}`] };
  const received = gateway.count('sluice_requests_received_total');
  const ended = gateway.count('sluice_requests_total');
  const inFlight = gateway.gauge('sluice_requests_in_flight');
  const completed = gateway.count('sluice_requests_total', { outcome: 'completed' });
  const clientCompleted = records.filter((r) => r.outcome === 'completed').length;
  const checks = [
    { holds: received === ended, text: `received ${received} ${received === ended ? '=' : '≠'} ${ended} ended` },
    { holds: inFlight === 0, text: `in flight at the end: ${inFlight}` },
    { holds: completed === clientCompleted, text: `completed ${completed} at the gateway ${completed === clientCompleted ? '=' : '≠'} ${clientCompleted} at the client` },
  ];
  return { id: ID, title: TITLE, status: checks.every((c) => c.holds) ? 'pass' : 'fail', details: checks.map((c) => `${c.holds ? '✓' : '✗'} ${c.text}`) };
}
