import { describe, expect, it } from 'vitest';
import type { RunRecord } from '@sluice/metrics';
import { serviceBooks, type ProcessScrape } from '../books/service-books.js';
import { parseSamples } from '../books/prometheus-text.js';
import { gatewayBooksInvariant } from './gateway-books.invariant.js';
import { stageBooksInvariant, type StageBooks } from './stage-books.invariant.js';

/** A process's scrape from exposition lines. */
function scrape(name: string, service: string, lines: string[], id = '100', restarts = 0): ProcessScrape {
  return { name, service, id, restarts, samples: parseSamples(lines.join('\n')) };
}

const completed = (n: number): RunRecord[] =>
  Array.from({ length: n }, (_, i) => ({ id: `r${i}`, fairnessId: 't', sloClass: 'standard', priority: 3, arrivalMs: 0, endMs: 1, outputTokens: 1, outcome: 'completed', status: 200, attempts: 1 }));

describe('service books', () => {
  const before = [scrape('worker-0', 'worker', ['vllm:request_success_total{engine="0"} 5']), scrape('worker-1', 'worker', ['vllm:request_success_total{engine="0"} 1'])];

  it('counts what every process of a service added over the run', () => {
    const after = [scrape('worker-0', 'worker', ['vllm:request_success_total{engine="0"} 15']), scrape('worker-1', 'worker', ['vllm:request_success_total{engine="0"} 8'])];
    const books = serviceBooks('worker', before, after);
    expect(books.ok && books.count('vllm:request_success_total')).toBe(17);
  });

  it('cannot read the books of a service one of whose processes was started again', () => {
    const after = [scrape('worker-0', 'worker', ['vllm:request_success_total 15']), scrape('worker-1', 'worker', ['vllm:request_success_total 2'], '222', 1)];
    expect(serviceBooks('worker', before, after)).toEqual({ ok: false, why: 'worker-1 restarted' });
    expect(serviceBooks('worker', before, [{ ...after[0]!, samples: undefined }])).toEqual({ ok: false, why: "worker-0's /metrics could not be read" });
    expect(serviceBooks('router', before, after)).toEqual({ ok: false, why: 'no router process' });
  });
});

describe('gateway books invariant', () => {
  const before = [scrape('gateway', 'gateway', ['sluice_requests_received_total{endpoint="completions"} 10', 'sluice_requests_total{outcome="completed",reason="ok"} 10', 'sluice_requests_in_flight 0'])];

  it('holds when received = ended, nothing in flight, completed as the client saw', () => {
    const after = [scrape('gateway', 'gateway', ['sluice_requests_received_total{endpoint="completions"} 14', 'sluice_requests_total{outcome="completed",reason="ok"} 13', 'sluice_requests_total{outcome="failed",reason="worker_lost"} 1', 'sluice_requests_in_flight 0'])];
    expect(gatewayBooksInvariant(serviceBooks('gateway', before, after), completed(3))).toMatchObject({
      status: 'pass',
      details: ['✓ received 4 = 4 ended', '✓ in flight at the end: 0', '✓ completed 3 at the gateway = 3 at the client'],
    });
  });

  it('fails a request counted twice or never, and is skipped after a gateway restart', () => {
    const after = [scrape('gateway', 'gateway', ['sluice_requests_received_total{endpoint="completions"} 14', 'sluice_requests_total{outcome="completed",reason="ok"} 15', 'sluice_requests_in_flight 1'])];
    const result = gatewayBooksInvariant(serviceBooks('gateway', before, after), completed(4));
    expect(result.status).toBe('fail');
    expect(result.details).toEqual(['✗ received 4 ≠ 5 ended', '✗ in flight at the end: 1', '✗ completed 5 at the gateway ≠ 4 at the client']);
    const restarted = [scrape('gateway', 'gateway', [], '999', 1)];
    expect(gatewayBooksInvariant(serviceBooks('gateway', before, restarted), [])).toMatchObject({ status: 'skipped', details: ['skipped: gateway restarted'] });
  });
});

describe('stage books invariant', () => {
  const zero = (name: string, service: string) => scrape(name, service, []);
  const before = [zero('gateway', 'gateway'), zero('admission', 'admission'), zero('flow-controller', 'flow-controller'), zero('router', 'router'), zero('worker-0', 'worker')];
  function books(after: ProcessScrape[]): StageBooks {
    return {
      gateway: serviceBooks('gateway', before, after),
      admission: serviceBooks('admission', before, after),
      flowController: serviceBooks('flow-controller', before, after),
      router: serviceBooks('router', before, after),
      worker: serviceBooks('worker', before, after),
    };
  }
  const gateway = (completedAtGateway: number) =>
    scrape('gateway', 'gateway', [
      'sluice_requests_received_total 20',
      `sluice_requests_total{outcome="completed",reason="ok"} ${completedAtGateway}`,
      'sluice_requests_total{outcome="rejected",reason="flow_capacity"} 2',
      'sluice_requests_total{outcome="failed",reason="worker_lost"} 1',
      'sluice_migrations_total{reason="worker_lost",type="ongoing_request"} 3',
    ]);
  const rest = (workerCompleted: number) => [
    scrape('admission', 'admission', ['sluice_admission_decisions_total{decision="admit",reason="admitted"} 20']),
    scrape('flow-controller', 'flow-controller', [
      'sluice_flow_arrivals_total{outcome="enqueued"} 18',
      'sluice_flow_arrivals_total{outcome="flow_capacity"} 2',
      'sluice_flow_dispatched_total{outcome="dispatched"} 18',
    ]),
    scrape('router', 'router', ['sluice_router_decisions_total{worker_instance="a"} 21']),
    // One request aborted at the worker: routed to it, but not a completion the gateway can count.
    scrape('worker-0', 'worker', [`vllm:request_success_total{engine="0",finished_reason="length"} ${workerCompleted}`, 'vllm:request_success_total{engine="0",finished_reason="abort"} 1']),
  ];

  it('holds when no stage counted more than was handed to it, and shows the surplus', () => {
    const result = stageBooksInvariant(books([gateway(17), ...rest(18)]));
    expect(result.status).toBe('pass');
    expect(result.details).toEqual([
      '✓ admission decided 20 ≤ gateway received + migrations 23 (+3)',
      '✓ flow control received 20 ≤ admission admitted + migrations 23 (+3)',
      '✓ workers completed 19 ≤ router decided 21 (+2)',
      '✓ gateway completed 17 ≤ workers completed 18 (+1)',
      '✓ gateway rejected for admission 0 ≤ admission rejected 0',
      '✓ gateway rejected for flow 2 ≤ flow control rejected 2',
      '✓ gateway ttl_expired 0 ≤ flow control ttl_expired 0',
    ]);
  });

  it('fails when the gateway reports completions no worker made; skips what needs a restarted stage', () => {
    const result = stageBooksInvariant(books([gateway(19), ...rest(18).slice(0, 3), scrape('worker-0', 'worker', [], '7', 1)]));
    expect(result.status).toBe('pass');
    expect(result.details.filter((d) => d.startsWith('–'))).toEqual([
      '– worker completions ≤ router decisions: skipped (worker-0 restarted)',
      '– gateway completed ≤ worker completions: skipped (worker-0 restarted)',
    ]);
    const failed = stageBooksInvariant(books([gateway(19), ...rest(18)]));
    expect(failed.status).toBe('fail');
    expect(failed.details).toContain('✗ gateway completed 19 > workers completed 18');
  });
});
