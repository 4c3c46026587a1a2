import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { epochMicros, handoffOrFail, sendErrorFrame, SERVICE_CONTEXT, type ServiceContext } from '@sluice/bus';
import {
  microsFromMillis,
  millisFromMicros,
  subjects,
  type AdmissionPolicyState,
  type BusyThresholdEntry,
  type BusyThresholdList,
  type BusyThresholdUpdate,
  type InferenceRequest,
  type KvEvent,
  type LifecycleEvent,
  type LoadSnapshot,
  type SetAdmissionPolicy,
} from '@sluice/contracts';
import type { SluiceConfig } from '@sluice/config';
import { AdmissionCluster, expirySweepIntervalUs } from '@sluice/policies';
import { SpanKind, SpanStatusCode, context, trace } from '@sluice/telemetry';
import { AdmissionMetrics } from './admission.metrics.js';
import { AdmissionPolicyStore } from '@sluice/stages';

/** The shell around the admission policy: keep a view of the cluster, decide, pass on or reject. */
@Injectable()
export class AdmissionService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('admission');
  private readonly store: AdmissionPolicyStore;
  private readonly cluster: AdmissionCluster;
  private readonly metrics: AdmissionMetrics;
  private sweep: NodeJS.Timeout | undefined;

  constructor(@Inject(SERVICE_CONTEXT) private readonly service: ServiceContext<SluiceConfig>) {
    const { admission, models } = service.config;
    this.store = new AdmissionPolicyStore(admission, models.map((m) => m.name));
    this.cluster = new AdmissionCluster(microsFromMillis(admission.heartbeatTimeoutMs));
    this.metrics = new AdmissionMetrics(service.metrics);
    this.metrics.showPolicy(this.store.state(), false);
  }

  onModuleInit(): void {
    const every = millisFromMicros(expirySweepIntervalUs(microsFromMillis(this.service.config.admission.heartbeatTimeoutMs)));
    this.sweep = setInterval(() => {
      for (const id of this.cluster.expire(epochMicros())) this.logger.warn(`instance ${id} missed its heartbeats: left the cluster view`);
    }, every);
  }

  onModuleDestroy(): void {
    clearInterval(this.sweep);
  }

  onLifecycle(event: LifecycleEvent): void {
    this.cluster.onLifecycle(event);
  }

  onSnapshot(snapshot: LoadSnapshot): void {
    this.cluster.onSnapshot(snapshot);
  }

  onKv(event: KvEvent): void {
    this.cluster.onKv(event);
  }

  policyState(): AdmissionPolicyState {
    return this.store.state();
  }

  setPolicy(change: SetAdmissionPolicy): AdmissionPolicyState {
    const state = this.store.set(change);
    this.logger.log(`admission policy is now ${state.policy} ${JSON.stringify(state.params)}`);
    this.metrics.showPolicy(state, true);
    return state;
  }

  busyThresholds(): BusyThresholdList {
    return this.store.busyThresholds();
  }

  setBusyThreshold(update: BusyThresholdUpdate): BusyThresholdEntry {
    const entry = this.store.setBusyThreshold(update);
    this.logger.log(`busy thresholds of ${entry.model}: ${JSON.stringify(entry)}`);
    this.metrics.showPolicy(this.store.state(), true);
    return entry;
  }

  async admit(request: InferenceRequest): Promise<void> {
    const receivedAt = performance.now();
    const policy = this.store.policy;
    const span = this.service.tracer.startSpan('admission.decide', {
      kind: SpanKind.CONSUMER,
      attributes: {
        'messaging.system': 'nats',
        'messaging.destination.name': subjects.admissionSubmit(),
        'sluice.request.id': request.id,
        'sluice.admission.policy': policy.name,
        'sluice.slo_class': request.sloClass,
        'sluice.admission.cost': request.inputTokens,
      },
    });
    try {
      const nowUs = epochMicros();
      const decision = policy.decide(request, this.cluster.view(nowUs), nowUs);
      for (const [key, value] of Object.entries(decision.inputs)) span.setAttribute(`sluice.admission.${key}`, value);
      const level = decision.inputs.bucket_level_after;
      if (typeof level === 'number') this.metrics.bucketLevel.set(level);
      span.setAttribute('sluice.admission.decision', decision.admit ? 'admit' : 'reject');
      const reason = decision.admit ? 'admitted' : decision.reason;
      span.setAttribute('sluice.admission.reason', reason);
      this.metrics.decisions.inc({ policy: policy.name, decision: decision.admit ? 'admit' : 'reject', reason, slo_class: request.sloClass });
      if (!decision.admit) {
        if (decision.reason === 'all_workers_busy') this.metrics.tasksRejected.inc({ model: request.model });
        sendErrorFrame(this.service.bus, request, 'admission', decision.reason, decision.message);
        return;
      }
      request.timings.admissionMs = performance.now() - receivedAt;
      const passed = await context.with(trace.setSpan(context.active(), span), () =>
        handoffOrFail(this.service.bus, subjects.flowSubmit(), request, 'admission', 'flow_unavailable'),
      );
      if (!passed) span.setStatus({ code: SpanStatusCode.ERROR, message: 'flow-controller did not ack' });
    } finally {
      span.end();
    }
  }
}
