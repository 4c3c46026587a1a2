import type { AdmissionPolicyState } from '@sluice/contracts';
import { Counter, Gauge, type Registry } from '@sluice/telemetry';

/** Numeric leaves of a parameter object, by dotted path (`budgetsUs.critical`). */
function numericParams(params: Record<string, unknown>, prefix = ''): [string, number][] {
  return Object.entries(params).flatMap(([key, value]): [string, number][] => {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'number') return [[path, value]];
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return numericParams(value as Record<string, unknown>, path);
    return [];
  });
}

/** The admission service's Prometheus metrics (docs/metrics.md). */
export class AdmissionMetrics {
  readonly decisions: Counter<'policy' | 'decision' | 'reason' | 'slo_class'>;
  readonly bucketLevel: Gauge;
  /** Admission processes sharing the arrivals, as this one counts them (a token bucket holds 1/N). */
  readonly replicas: Gauge;
  /** Dynamo's name for requests refused because every worker is busy. */
  readonly tasksRejected: Counter<'model'>;
  private readonly policyInfo: Gauge<'policy'>;
  private readonly policyParam: Gauge<'policy' | 'param'>;
  private readonly policyChanges: Counter<'policy'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.decisions = new Counter({
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
    this.bucketLevel = new Gauge({
      name: 'sluice_admission_token_bucket_level',
      help: 'Tokens in the token bucket after the latest decision (token-bucket policy).',
      registers,
    });
    this.tasksRejected = new Counter({
      name: 'dynamo_tasks_rejected_total',
      help: 'Requests rejected because every worker was busy (busy-threshold), as Dynamo counts them.',
      labelNames: ['model'],
      registers,
    });
    this.policyInfo = new Gauge({ name: 'sluice_admission_policy_info', help: 'The active admission policy (value 1).', labelNames: ['policy'], registers });
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

  /** Shows the active policy and its parameters; `changed` counts a run-time change. */
  showPolicy(state: AdmissionPolicyState, changed: boolean): void {
    this.policyInfo.reset();
    this.policyInfo.set({ policy: state.policy }, 1);
    this.policyParam.reset();
    for (const [param, value] of numericParams(state.params)) this.policyParam.set({ policy: state.policy, param }, value);
    if (changed) this.policyChanges.inc({ policy: state.policy });
  }
}
