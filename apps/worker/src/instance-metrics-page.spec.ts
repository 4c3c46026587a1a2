import { describe, expect, it } from 'vitest';
import { instanceMetricsPage } from './instance-metrics-page.js';

const PAGE = [
  '# HELP vllm:num_requests_running Number of requests in model execution batches.',
  '# TYPE vllm:num_requests_running gauge',
  'vllm:num_requests_running{model_name="m",engine="0"} 2',
  'vllm:num_requests_running{model_name="m",engine="1"} 5',
  'vllm:num_requests_running{model_name="m",engine="10"} 7',
  '# HELP process_cpu_user_seconds_total CPU.',
  'process_cpu_user_seconds_total 1.5',
  'vllm:e2e_request_latency_seconds_bucket{le="0.3",model_name="m",engine="1"} 4',
].join('\n');

describe('instanceMetricsPage', () => {
  it("keeps the vllm:* families and only this instance's series", () => {
    expect(instanceMetricsPage(PAGE, 1)).toBe(
      [
        '# HELP vllm:num_requests_running Number of requests in model execution batches.',
        '# TYPE vllm:num_requests_running gauge',
        'vllm:num_requests_running{model_name="m",engine="1"} 5',
        'vllm:e2e_request_latency_seconds_bucket{le="0.3",model_name="m",engine="1"} 4',
        '',
      ].join('\n'),
    );
  });

  it('does not take engine 10 for engine 1', () => {
    expect(instanceMetricsPage(PAGE, 10)).toContain('engine="10"} 7');
    expect(instanceMetricsPage(PAGE, 10)).not.toContain('engine="1"}');
  });
});
