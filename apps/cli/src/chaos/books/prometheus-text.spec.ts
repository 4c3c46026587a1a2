import { describe, expect, it } from 'vitest';
import { has, parseSamples, sumBy, sumOf } from './prometheus-text.js';

const TEXT = `# HELP sluice_requests_total Requests by terminal outcome.
# TYPE sluice_requests_total counter
sluice_requests_total{outcome="completed",reason="ok"} 40
sluice_requests_total{outcome="failed",reason="worker_lost"} 2
sluice_requests_total{outcome="rejected",reason="flow_capacity"} 3
# TYPE sluice_requests_in_flight gauge
sluice_requests_in_flight 0
# TYPE vllm:request_success_total counter
vllm:request_success_total{model_name="qwen3-14b",engine="0",finished_reason="length"} 21
vllm:request_success_total{model_name="qwen3-14b",engine="1",finished_reason="length"} 19
sluice_odd{path="a \\"quoted\\" one"} 1.5
`;

describe('prometheus text', () => {
  const samples = parseSamples(TEXT);

  it('reads names (colons included), labels (escapes included) and values, skipping comments', () => {
    expect(samples).toHaveLength(7);
    expect(samples.at(-1)).toEqual({ name: 'sluice_odd', labels: { path: 'a "quoted" one' }, value: 1.5 });
    expect(samples[3]).toEqual({ name: 'sluice_requests_in_flight', labels: {}, value: 0 });
  });

  it('sums over labels that match one value or any of several', () => {
    expect(sumOf(samples, 'sluice_requests_total')).toBe(45);
    expect(sumOf(samples, 'sluice_requests_total', { outcome: 'completed' })).toBe(40);
    expect(sumOf(samples, 'sluice_requests_total', { reason: ['worker_lost', 'flow_capacity'] })).toBe(5);
    expect(sumOf(samples, 'vllm:request_success_total')).toBe(40);
    expect(sumOf(samples, 'sluice_migrations_total')).toBe(0);
    expect(sumBy(samples, 'sluice_requests_total', 'outcome')).toEqual({ completed: 40, failed: 2, rejected: 3 });
    expect(has(samples, 'sluice_migrations_total')).toBe(false);
  });
});
