import { z } from 'zod';

/*
 * prometheus-adapter's metrics discovery config (the file its --config names), for checking the
 * rules in infra/k8s without an adapter. Written from kubernetes-sigs/prometheus-adapter
 * pkg/config/config.go @ 510c3724ce0a21e8e47455211dc2331c5720d8c7 (MetricsDiscoveryConfig and
 * DiscoveryRule); strict, as pkg/config/loader.go reads the file with yaml.UnmarshalStrict and
 * refuses an unknown key. resourceRules (the resource metrics API) is not used by sluice, so left out.
 */

const GroupResource = z.strictObject({ group: z.string().optional(), resource: z.string().min(1) });

const DiscoveryRule = z.strictObject({
  /** A series selector, as Prometheus' /api/v1/series takes it. */
  seriesQuery: z.string().min(1),
  seriesFilters: z.array(z.union([z.strictObject({ is: z.string() }), z.strictObject({ isNot: z.string() })])).optional(),
  resources: z
    .strictObject({
      template: z.string().optional(),
      overrides: z.record(z.string(), GroupResource).optional(),
      /** false: the HPA's namespace is not added to the query. */
      namespaced: z.boolean().optional(),
    })
    .optional(),
  name: z.strictObject({ matches: z.string().optional(), as: z.string().optional() }).optional(),
  /** A Go template with << >> delimiters: .Series, .LabelMatchers, .GroupBy. */
  metricsQuery: z.string().min(1).optional(),
});
export type PrometheusAdapterRule = z.infer<typeof DiscoveryRule>;

export const PrometheusAdapterConfigSchema = z.strictObject({
  rules: z.array(DiscoveryRule),
  externalRules: z.array(DiscoveryRule).optional(),
});

/**
 * The PromQL the adapter sends for one external metric request: the rule's metricsQuery with the
 * series name and the label matchers filled in (`<<.Series>>`, `<<.LabelMatchers>>`, `<<.GroupBy>>`).
 */
export function adapterQuery(rule: PrometheusAdapterRule, series: string, labelMatchers: string): string {
  return (rule.metricsQuery ?? '<<.Series>>{<<.LabelMatchers>>}')
    .replaceAll('<<.Series>>', series)
    .replaceAll('<<.LabelMatchers>>', labelMatchers)
    .replaceAll('<<.GroupBy>>', '');
}
