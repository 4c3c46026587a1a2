import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { ConfigSchema } from '../config.schema.js';
import { translateEndpointPickerConfig } from './epp-config.translate.js';

const fixture = (name: string): unknown => parseYaml(readFileSync(fileURLToPath(new URL(`../../fixtures/endpoint-picker/${name}`, import.meta.url)), 'utf8'));

/** A config of the given plugins and one profile entry per plugin, as a user writes it. */
function epp(plugins: unknown[], rest: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: 'inference.networking.x-k8s.io/v1alpha1', kind: 'EndpointPickerConfig', plugins, ...rest };
}
const QUEUE = { type: 'queue-scorer' };

describe('translateEndpointPickerConfig', () => {
  it("reads GAIE's Helm default into the weighted policy with the same weights, flow control off", () => {
    const { fragment, problems, mapped } = translateEndpointPickerConfig(fixture('gaie-helm-default.epp.yaml'));
    expect(problems).toEqual([]);
    expect(fragment).toEqual({
      router: { policy: 'weighted', policies: { weighted: { weights: { 'queue-depth': 2, 'kv-utilization': 2, 'prefix-affinity': 3 } } } },
      flowController: { enabled: false },
    });
    expect(mapped).toContain('plugins[3] metrics-data-source → the workers\' load snapshots over NATS (no scrape)');
    // The fragment is a valid sluice.yaml on its own.
    expect(ConfigSchema.parse(fragment).router.policies.weighted).toEqual({ weights: { 'prefix-affinity': 3, 'queue-depth': 2, 'kv-utilization': 2 } });
  });

  it("reads the flow-control guide's gate, detector thresholds, capacity, TTL and bands", () => {
    const { fragment, problems } = translateEndpointPickerConfig(fixture('gaie-flow-control-guide.epp.yaml'));
    expect(problems).toEqual([]);
    const config = ConfigSchema.parse(fragment).flowController;
    expect(config.enabled).toBe(true);
    expect(config.saturationDetector).toEqual({ type: 'utilization-detector', parameters: { queueDepthThreshold: 2, kvCacheUtilThreshold: 0.85, metricsStalenessThreshold: 200 } });
    expect(config.maxBytes).toBe(1_000_000_000);
    expect(config.defaultRequestTTL).toBe(30_000);
    expect(config.priorityBands).toEqual([
      { priority: 100, maxBytes: 500_000_000, maxRequests: 0, fairnessPolicyRef: 'global-strict-fairness-policy', orderingPolicyRef: 'fcfs-ordering-policy' },
      { priority: 0, maxBytes: 0, maxRequests: 0, fairnessPolicyRef: 'round-robin-fairness-policy', orderingPolicyRef: 'fcfs-ordering-policy' },
    ]);
  });

  it("refuses GAIE's integration-test config naming the LoRA scorer and the legacy-metrics gate, and nothing else", () => {
    const { problems } = translateEndpointPickerConfig(fixture('gaie-integration-default.epp.yaml'));
    expect(problems).toEqual([
      'featureGates[0]: "enableLegacyMetrics" is not supported: sluice\'s workers push their signals, there are no scraped metric names to choose',
      'plugins[3].type: "lora-affinity-scorer" is not supported: sluice has no LoRA adapters',
    ]);
  });

  it.each([
    ['an unknown plugin type', epp([QUEUE, { type: 'my-scorer' }]), /^plugins\[1\]\.type: "my-scorer" is not a plugin type sluice knows; supported: prefix-cache-scorer, queue-scorer/],
    ["llm-d's load-aware scorer", epp([QUEUE, { type: 'load-aware-scorer' }]), /^plugins\[1\]\.type: "load-aware-scorer" is not supported: sluice's load-balance scorer is 1 \/ \(1 \+ effective load\)/],
    ['a random picker', epp([QUEUE, { type: 'random-picker' }]), /^plugins\[1\]\.type: "random-picker" is not supported: no sluice routing policy picks uniformly at random$/],
    ['a parameter sluice has no place for', epp([{ type: 'queue-scorer', parameters: { depth: 3 } }]), /^plugins\[0\]\.parameters\.depth: is not supported: "queue-scorer" takes no parameters in sluice$/],
    ['more than one endpoint picked', epp([QUEUE, { type: 'max-score-picker', parameters: { maxNumOfEndpoints: 2 } }]), /^plugins\[1\]\.parameters\.maxNumOfEndpoints: 2 is not supported: a sluice request goes to one instance/],
    ['a scrape path other than /metrics', epp([QUEUE, { type: 'metrics-data-source', parameters: { path: '/stats' } }]), /^plugins\[1\]\.parameters\.path: "\/stats" is not supported/],
    ['an unknown top-level field', epp([QUEUE], { scheduling: {} }), /^scheduling: is not a field sluice reads in EndpointPickerConfig/],
    ['flowControl without its gate', epp([QUEUE], { flowControl: { maxRequests: 10 } }), /^flowControl: takes effect only with the "flowControl" feature gate/],
    ['a usage-limit policy', epp([QUEUE], { featureGates: ['flowControl'], flowControl: { usageLimitPolicyPluginRef: 'x' } }), /^flowControl\.usageLimitPolicyPluginRef: is not supported/],
    ['a band ref to no plugin', epp([QUEUE], { featureGates: ['flowControl'], flowControl: { priorityBands: [{ priority: 1, orderingPolicyRef: 'lifo' }] } }), /^flowControl\.priorityBands\[0\]\.orderingPolicyRef: "lifo" is not the name of an entry of plugins$/],
    ['a bad quantity', epp([QUEUE], { featureGates: ['flowControl'], flowControl: { maxBytes: 'lots' } }), /^flowControl\.maxBytes: /],
    ['a second profile', epp([QUEUE], { schedulingProfiles: [{ name: 'a', plugins: [{ pluginRef: 'queue-scorer' }] }, { name: 'b', plugins: [] }] }), /^schedulingProfiles\[1\]: is not supported: sluice runs one scheduling profile per request/],
    ['a weight on a picker', epp([QUEUE, { type: 'max-score-picker' }], { schedulingProfiles: [{ name: 'd', plugins: [{ pluginRef: 'queue-scorer' }, { pluginRef: 'max-score-picker', weight: 2 }] }] }), /^schedulingProfiles\[0\]\.plugins\[1\]\.weight: a picker has no weight$/],
    ['the same scorer twice', epp([QUEUE, { name: 'q2', type: 'queue-scorer' }]), /^schedulingProfiles\[0\]\.plugins\[1\]: a second queue-scorer/],
    ['a scorer no profile uses', epp([QUEUE, { type: 'prefix-cache-scorer' }], { schedulingProfiles: [{ name: 'd', plugins: [{ pluginRef: 'queue-scorer' }] }] }), /^plugins\[1\]: "prefix-cache-scorer" \(prefix-cache-scorer\) is referenced by nothing/],
    ['a detector nothing references', epp([QUEUE, { name: 'cd', type: 'concurrency-detector' }]), /^plugins\[1\]: "cd" \(concurrency-detector\) is referenced by nothing/],
    ['inline detector thresholds (an older form)', epp([QUEUE], { saturationDetector: { metricsStalenessThreshold: '150ms' } }), /^saturationDetector\.metricsStalenessThreshold: is not a field sluice reads/],
    ['a utilization headroom', epp([QUEUE, { type: 'utilization-detector', parameters: { headroom: 0.2 } }]), /^plugins\[1\]\.parameters\.headroom: 0\.2 is not supported/],
    ['a detector threshold out of range', epp([QUEUE, { type: 'utilization-detector', parameters: { kvCacheUtilThreshold: 1.5 } }]), /^plugins\[1\]\.parameters\.kvCacheUtilThreshold: /],
    ['no scorer at all', epp([{ type: 'max-score-picker' }]), /^schedulingProfiles\[0\]\.plugins: needs a scorer with a positive weight/],
    ['a gRPC parser', epp([QUEUE, { type: 'vllmgrpc-parser' }]), /^plugins\[1\]\.type: "vllmgrpc-parser" is not supported/],
    ['another apiVersion', { ...epp([QUEUE]), apiVersion: 'config.x-k8s.io/v1alpha1' }, /^apiVersion: "config\.x-k8s\.io\/v1alpha1" is not inference\.networking\.x-k8s\.io\/v1alpha1$/],
  ])('refuses %s, naming its path', (_, doc, message) => {
    const { problems } = translateEndpointPickerConfig(doc);
    expect(problems.some((p) => message.test(p)), problems.join('\n')).toBe(true);
  });

  it('makes the default profile of every scorer at weight 1 when none is given, as the EPP does', () => {
    const { fragment, problems } = translateEndpointPickerConfig(epp([QUEUE, { type: 'kv-cache-utilization-scorer' }, { type: 'max-score-picker' }]));
    expect(problems).toEqual([]);
    expect(fragment).toMatchObject({ router: { policy: 'weighted', policies: { weighted: { weights: { 'queue-depth': 1, 'kv-utilization': 1 } } } } });
  });

  it("gives the concurrency detector's token limit in tokens mode, and its request limit otherwise", () => {
    const tokens = translateEndpointPickerConfig(epp([QUEUE, { type: 'concurrency-detector', parameters: { concurrencyMode: 'tokens', maxTokenConcurrency: 200_000 } }], { saturationDetector: { pluginRef: 'concurrency-detector' } }));
    expect(tokens.problems).toEqual([]);
    expect(tokens.fragment).toMatchObject({ flowController: { saturationDetector: { type: 'concurrency-detector', parameters: { concurrencyMode: 'tokens', maxConcurrency: 200_000 } } } });
    const requests = translateEndpointPickerConfig(epp([QUEUE, { type: 'concurrency-detector', parameters: { maxConcurrency: 110, maxTokenConcurrency: 5 } }], { saturationDetector: { pluginRef: 'concurrency-detector' } }));
    expect(requests.problems).toEqual(['plugins[1].parameters.maxTokenConcurrency: takes effect only in tokens mode (concurrencyMode is requests)']);
  });
});
