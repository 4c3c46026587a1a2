import type { ServiceName } from '@sluice/launcher';
import type { MetricType } from '../prometheus-exposition.js';

/**
 * One metric as a peer project exposes it, kept as a fact so a test can hold sluice to it:
 * the public dashboards of vLLM and of the Endpoint Picker select by these names, labels, label
 * values and bucket bounds.
 */
export interface MetricFact {
  /** The series family as it appears on `# TYPE` (counters with their `_total`). */
  readonly name: string;
  readonly type: MetricType;
  /** Which sluice service plays the peer process that exposes it. */
  readonly service: ServiceName;
  /** The label names the peer puts on it (sluice adds `service` and `instance_id` to everything). */
  readonly labels: readonly string[];
  /** Labels some versions of the peer add: allowed, not required. */
  readonly optionalLabels?: readonly string[];
  /** Labels that follow the peer's configuration (vLLM's CacheConfig fields): any more are allowed. */
  readonly openLabels?: boolean;
  /**
   * Bucket bounds, as the `le` strings the peer writes (`+Inf` left out). `exactLe`: compared as
   * strings (vLLM's Python client writes `1.0`, and dashboards select `le="1.0"`); otherwise as
   * numbers (Go's client writes `1`, as prom-client does).
   */
  readonly buckets?: readonly string[];
  readonly exactLe?: boolean;
  /** Label values the workload of the test must produce (or the peer always exposes, at zero). */
  readonly values?: Readonly<Record<string, readonly string[]>>;
  /** Where the fact comes from: repository and path. */
  readonly source: string;
}

