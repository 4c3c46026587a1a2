import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { epochMicros, suspendExpiryWhileDisconnected, WakeUpTimers } from '@sluice/bus';
import { RequestIntake, SERVICE_CONTEXT, type ServiceContext } from '@sluice/service';
import type {
  AdmissionPolicyState,
  BusyThresholdEntry,
  BusyThresholdList,
  BusyThresholdUpdate,
  CancelRequest,
  InferenceRequest,
  KvEvent,
  LifecycleEvent,
  LoadSnapshot,
  PresenceEvent,
  SetAdmissionPolicy,
} from '@sluice/contracts';
import type { SluiceConfig } from '@sluice/config';
import { AdmissionStage, admissionSettingsFrom, type AdmissionWakeUp } from '@sluice/stages';
import { AdmissionOnBus, type AdmissionCarried } from './admission-on-bus.js';
import { AdmissionMetrics } from './admission.metrics.js';

/**
 * The admission stage on the bus: requests and worker events in, the core's decisions out
 * (libs/stages AdmissionStage holds every rule; `AdmissionOnBus` turns its effects into handoffs,
 * error frames, spans and metrics).
 */
@Injectable()
export class AdmissionService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('admission');
  private readonly stage: AdmissionStage<InferenceRequest, AdmissionCarried>;
  private readonly timers: WakeUpTimers<AdmissionWakeUp>;
  private readonly onBus: AdmissionOnBus;
  private readonly metrics: AdmissionMetrics;
  private readonly intake: RequestIntake;

  constructor(@Inject(SERVICE_CONTEXT) service: ServiceContext<SluiceConfig>) {
    const { admission, models } = service.config;
    this.metrics = new AdmissionMetrics(service.metrics);
    this.timers = new WakeUpTimers((kind, atUs, nowUs) => this.stage.wake(kind, atUs, nowUs), epochMicros);
    this.intake = new RequestIntake(service, 'admission');
    this.onBus = new AdmissionOnBus(service, this.metrics, this.logger, this.intake, (request, carried, message, why) => this.stage.handoffRefused(request, carried, message, why));
    this.stage = new AdmissionStage(admissionSettingsFrom(admission, models.map((m) => m.name), 'always'), this.onBus, this.timers);
    suspendExpiryWhileDisconnected(service.bus, this.stage);
    this.metrics.showPolicy(this.stage.policyState(), false);
  }

  onModuleInit(): void {
    this.stage.start(epochMicros());
  }

  onModuleDestroy(): void {
    this.stage.stop();
    this.timers.clear();
  }

  admit(request: InferenceRequest): void {
    if (!this.intake.take(request)) return; // a duplicate, superseded or cancelled copy
    this.stage.submit(request, epochMicros(), this.onBus.received(request));
  }

  onCancel(cancel: CancelRequest): void {
    this.intake.cancel(cancel);
  }

  onLifecycle(event: LifecycleEvent): void {
    this.stage.onLifecycle(event);
  }

  onSnapshot(snapshot: LoadSnapshot): void {
    this.stage.onSnapshot(snapshot);
  }

  onKv(event: KvEvent): void {
    this.stage.onKv(event);
  }

  /** An admission process (a replica, or this one) came up, beat or went down: the budget's split. */
  onPresence(event: PresenceEvent): void {
    this.stage.onPresence(event, epochMicros());
    this.metrics.replicas.set(this.stage.replicaCount());
  }

  policyState(): AdmissionPolicyState {
    return this.stage.policyState();
  }

  setPolicy(change: SetAdmissionPolicy): AdmissionPolicyState {
    const state = this.stage.setPolicy(change);
    this.logger.log(`admission policy is now ${state.policy} ${JSON.stringify(state.params)}`);
    this.metrics.showPolicy(state, true);
    return state;
  }

  busyThresholds(): BusyThresholdList {
    return this.stage.busyThresholds();
  }

  setBusyThreshold(update: BusyThresholdUpdate): BusyThresholdEntry {
    const entry = this.stage.setBusyThreshold(update);
    this.logger.log(`busy thresholds of ${entry.model}: ${JSON.stringify(entry)}`);
    this.metrics.showPolicy(this.stage.policyState(), true);
    return entry;
  }
}
