import { describe, expect, it } from 'vitest';
import { labelValuesQuery, metricNames, panelExpressions, plottedPanels, substitute, templateVariables } from './panel-queries.mjs';

describe('a dashboard as panels-with-data.mjs reads it', () => {
  const dashboard = {
    panels: [
      { type: 'row', title: 'Collapsed', panels: [{ type: 'stat', title: 'inside', targets: [{ expr: 'sum(x_total)' }] }] },
      { type: 'text', title: 'about' },
      { type: 'timeseries', title: 'two', targets: [{ expr: 'a_seconds' }, { expr: 'b_seconds', hide: true }, { expr: ' ' }] },
    ],
    templating: { list: [{ name: 'model_name', type: 'query', query: { query: 'label_values(vllm:num_requests_running{job=~"$job"}, model_name)' } }, { name: 'ttft_slo', type: 'custom', current: { value: '1.0' } }] },
  };

  it('counts plotted panels, collapsed rows included, and only their visible queries', () => {
    expect(plottedPanels(dashboard).map((p: { title: string }) => p.title)).toEqual(['inside', 'two']);
    expect(panelExpressions(plottedPanels(dashboard)[1])).toEqual(['a_seconds']);
  });

  it('reads label_values variables as a selector and a label', () => {
    const variables = templateVariables(dashboard);
    expect(labelValuesQuery(variables.get('model_name'))).toEqual({ selector: 'vllm:num_requests_running{job=~"$job"}', label: 'model_name' });
    expect(labelValuesQuery({ query: 'label_values(job)' })).toEqual({ selector: undefined, label: 'job' });
    expect(labelValuesQuery({ query: 'query_result(up)' })).toBeUndefined();
  });

  it('sets every form of variable, and "All" (.*) for one without a value', () => {
    const values = new Map([['model_name', 'qwen3-14b'], ['ttft_slo', '1.0']]);
    expect(substitute('sum(rate(h_bucket{model_name="$model_name", le="${ttft_slo}", job=~"[[job]]"}[$__rate_interval])) / $__range_s', values, { rateInterval: '30s', range: '2m' })).toBe(
      'sum(rate(h_bucket{model_name="qwen3-14b", le="1.0", job=~".*"}[30s])) / 120',
    );
  });

  it('names the metrics an expression reads, not its functions, labels or strings', () => {
    expect(metricNames('histogram_quantile(0.9, sum by (le, model_name) (rate(vllm:e2e_request_latency_seconds_bucket{a="b_c"}[5m]))) / on () group_left () up_total')).toEqual([
      'vllm:e2e_request_latency_seconds_bucket',
      'up_total',
    ]);
  });
});
