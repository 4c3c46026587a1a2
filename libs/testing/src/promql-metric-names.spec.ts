import { describe, expect, it } from 'vitest';
import { metricNamesIn, metricNamesInVariableQuery, PromqlNameError } from './promql-metric-names.js';

describe('metricNamesIn', () => {
  it('finds the series of a histogram quantile, not its functions or label lists', () => {
    expect(metricNamesIn('histogram_quantile(0.99, sum by (le, slo_class) (rate(sluice_time_to_first_token_seconds_bucket[1m])))')).toEqual([
      'sluice_time_to_first_token_seconds_bucket',
    ]);
  });

  it('ignores label matchers, their values, Grafana variables and a trailing by clause', () => {
    expect(metricNamesIn('sum(rate(vllm:num_preemptions_total{instance_id="$worker", engine=~"a|b{1}"}[$__rate_interval])) by (engine)')).toEqual([
      'vllm:num_preemptions_total',
    ]);
  });

  it('finds both sides of a binary expression, once each', () => {
    const expr = 'sum(rate(x_sum[5m])) / sum(rate(x_count[5m])) or on (policy) vector(0) and x_sum > bool 1e3';
    expect(metricNamesIn(expr)).toEqual(['x_sum', 'x_count']);
  });

  it('keeps a misspelt metric name, so the comparison with a live scrape can fail', () => {
    expect(metricNamesIn('sum by (outcome) (rate(sluice_requets_total[1m]))')).toEqual(['sluice_requets_total']);
  });

  it('rejects an unknown function instead of skipping it', () => {
    expect(() => metricNamesIn('histogram_quantil(0.5, rate(a_bucket[1m]))')).toThrow(PromqlNameError);
  });
});

describe('metricNamesInVariableQuery', () => {
  it('reads the metric of label_values, not its label argument', () => {
    expect(metricNamesInVariableQuery('label_values(vllm:num_requests_running{instance_id="$worker"}, engine)')).toEqual(['vllm:num_requests_running']);
    expect(metricNamesInVariableQuery('label_values(instance_id)')).toEqual([]);
  });
});
