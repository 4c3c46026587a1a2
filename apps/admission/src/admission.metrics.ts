import type { AdmissionPolicyState } from '@sluice/contracts';
import { Counter, Gauge, LeanCounter, LeanGauge, type Registry } from '@sluice/telemetry';

/** Numeric leaves of a parameter object, by dotted path (`budgetsUs.critical`). */
function numericParams(params: Record<string, unknown>, prefix = ''): [string, number][] {
  return Object.entries(params).flatMap(([key, value]): [string, number][] => {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'number') return [[path, value]];
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return numericParams(value as Record<string, unknown>, path);
    return [];
  });
}

/**
 * The admission service's Prometheus metrics (docs/metrics.md). What every decision writes (its
 * count, a busy rejection, the bucket's level) is a lean series (libs/telemetry's README: written
 * per request); the policy's description, set at start-up and on a change, is prom-client's.
 */
export class AdmissionMetrics {
  private readonly decisions: LeanCounter<'policy' | 'decision' | 'reason' | 'slo_class'>;
  /** Tokens in the bucket after the latest decision. */
  readonly bucketLevel: { set(value: number): void };
  /** Admission processes sharing the arrivals, as this one counts them (a token bucket holds 1/N). */
  readonly replicas: Gauge;
  /** Dynamo's name for requests refused because every worker is busy. */
  private readonly tasksRejected: LeanCounter<'model'>;
  /** Dynamo's name for the requests it was asked to serve: every admission decision, admitted or not. */
  private readonly tasksIssued: LeanCounter<'model'>;
  private readonly policyInfo: Gauge<'policy' | 'position'>;
  private readonly policyParam: Gauge<'policy' | 'param'>;
  private readonly policyChanges: Counter<'policy'>;

  /** `models`: the configured models, whose Dynamo task series exist at 0 from the start. */
  constructor(registry: Registry, models: readonly string[] = []) {
    const registers = [registry];
    this.decisions = new LeanCounter({
      name: 'sluice_admission_decisions_total',
      help: 'Admission decisions by policy, decision, reason and SLO class.',
      labelNames: ['policy', 'decision', 'reason', 'slo_class'],
      registers,
    });
    this.replicas = new Gauge({
      name: 'sluice_admission_replicas',
      help: 'Admission processes sharing the arrivals, as this one counts them from their presence (a token bucket holds 1/N of its capacity and refill).',
      registers,
    });
    this.replicas.set(1);
    // Its one series exists from the start, at 0, as an unlabelled prom-client gauge's does.
    this.bucketLevel = new LeanGauge({
      name: 'sluice_admission_token_bucket_level',
      help: 'Tokens in the token bucket after the latest decision (token-bucket policy).',
      registers,
    }).labels();
    this.tasksRejected = new LeanCounter({
      name: 'dynamo_tasks_rejected_total',
      help: 'Requests rejected because every worker was busy (busy-threshold), as Dynamo counts them.',
      labelNames: ['model'],
      registers,
    });
    // Dynamo's TaskTracker counts tasks issued beside those rejected, so its rejection-rate query
    // sum(rate(dynamo_tasks_rejected_total[5m])) / sum(rate(dynamo_tasks_issued_total[5m])) works:
    // ai-dynamo/dynamo lib/runtime/src/utils/tasks/tracker.rs @ b072cdb2cced2710addf97651879e5c2d6e59a75
    // (PrometheusTaskMetrics) and docs/fault-tolerance/request-rejection.md @ e5d52eee56d24fe946c727db698d29f24f36b90a.
    this.tasksIssued = new LeanCounter({
      name: 'dynamo_tasks_issued_total',
      help: 'Requests issued to the cluster (every admission decision, admitted or not), as Dynamo counts them.',
      labelNames: ['model'],
      registers,
    });
    // At 0 from the start for every configured model, so a rate over a window that begins before
    // the first request (the rejection rate's numerator and denominator alike) counts every one.
    for (const model of models) {
      this.tasksIssued.labels({ model });
      this.tasksRejected.labels({ model });
    }
    this.policyInfo = new Gauge({
      name: 'sluice_admission_policy_info',
      help: 'The admission chain (value 1 per check; position 1 is checked first).',
      labelNames: ['policy', 'position'],
      registers,
    });
    this.policyParam = new Gauge({
      name: 'sluice_admission_policy_param',
      help: "The active admission policy's numeric parameters, by dotted name.",
      labelNames: ['policy', 'param'],
      registers,
    });
    this.policyChanges = new Counter({
      name: 'sluice_admission_policy_changes_total',
      help: 'Run-time changes of the admission policy or its parameters, by the policy after the change.',
      labelNames: ['policy'],
      registers,
    });
  }

  /** One admission decision, by the check that decided it (the one that refused, else the chain's last). */
  decision(policy: string, decision: 'admit' | 'reject', reason: string, sloClass: string, model: string): void {
    this.decisions.inc({ policy, decision, reason, slo_class: sloClass });
    this.tasksIssued.inc({ model });
  }

  /** A request refused because every worker serving its model is busy (busy-threshold). */
  busyRejection(model: string): void {
    this.tasksRejected.inc({ model });
  }

  /**
   * Shows the chain and its parameters (a chain of several keys them by check: `token-bucket.capacity`
   * becomes policy="token-bucket", param="capacity"); `changed` counts a run-time change.
   */
  showPolicy(state: AdmissionPolicyState, changed: boolean): void {
    const chain = state.policy.split(',');
    this.policyInfo.reset();
    chain.forEach((policy, i) => this.policyInfo.set({ policy, position: String(i + 1) }, 1));
    this.policyParam.reset();
    for (const policy of chain) {
      const params = chain.length === 1 ? state.params : ((state.params[policy] ?? {}) as Record<string, unknown>);
      for (const [param, value] of numericParams(params)) this.policyParam.set({ policy, param }, value);
    }
    if (changed) this.policyChanges.inc({ policy: state.policy });
  }
}
