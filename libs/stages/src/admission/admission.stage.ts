import type {
  AdmissionPolicyState,
  BusyThresholdEntry,
  BusyThresholdList,
  BusyThresholdsAnnouncement,
  BusyThresholdUpdate,
  FlowQueueReport,
  KvEvent,
  LifecycleEvent,
  LoadSnapshot,
  Micros,
  PresenceEvent,
  SetAdmissionPolicy,
} from '@sluice/contracts';
import { AdmissionCluster, expirySweepIntervalUs } from '@sluice/policies';
import { micros } from '@sluice/contracts';
import { worthHandingBack, type HandoffFailure } from '../hand-back.js';
import { ReplicaSet } from '../replica-set.js';
import type { StageRequest } from '../stage-request.js';
import { Periodic, type WakeUps } from '../wake-ups.js';
import type { AdmissionEffects } from './admission.effects.js';
import { AdmissionPolicyStore } from './admission-policy.store.js';
import type { AdmissionSettings } from './admission.settings.js';
import { PredictiveInputs } from './predictive-inputs.js';

/** Ledger entries kept per model at most: far above any burst one admission process admits within a snapshot interval. */
const LEDGER_MAX_PER_MODEL = 65_536;
const DEFAULT_LEDGER_SETTLE_US = micros(3_000);

export type AdmissionWakeUp = 'sweep';

/**
 * The admission stage (docs/behaviour.md §2): the first gate. It keeps admission's view of the
 * cluster (lifecycle, load snapshots, KV events into a prefix index), asks the admission chain
 * (one policy, or several checked in order) about each request, and either hands the request on
 * or ends it with the reason of the check that refused it. The chain and its parameters can
 * change at run time (control verbs, Dynamo's busy thresholds); the busy thresholds are announced
 * to the routers, which route only among free instances.
 * Pure: the caller passes the time of every call; its effects go through `AdmissionEffects`.
 */
export class AdmissionStage<R extends StageRequest, C = undefined> {
  private expirySuspended = false;
  private readonly store: AdmissionPolicyStore;
  private readonly cluster: AdmissionCluster;
  /** The admission processes sharing the arrivals: a budget (the token bucket) is split among them. */
  private readonly replicas: ReplicaSet;
  private readonly sweep: Periodic<AdmissionWakeUp>;
  /** What it admitted that no report shows yet, flow control's queue, the models' coefficients. */
  private readonly inputs: PredictiveInputs;

  constructor(
    settings: AdmissionSettings,
    private readonly effects: AdmissionEffects<R, C>,
    wakeUps: WakeUps<AdmissionWakeUp>,
  ) {
    this.store = new AdmissionPolicyStore(settings, settings.models);
    const keepPrefixIndex = settings.prefixIndex === 'always' || this.store.chain.readsPrefix;
    this.cluster = new AdmissionCluster(settings.heartbeatTimeoutUs, { keepPrefixIndex });
    this.replicas = new ReplicaSet(settings.heartbeatTimeoutUs);
    this.sweep = new Periodic('sweep', expirySweepIntervalUs(settings.heartbeatTimeoutUs), wakeUps);
    this.inputs = new PredictiveInputs({
      ledger: { settleUs: settings.ledgerSettleUs ?? DEFAULT_LEDGER_SETTLE_US, maxAgeUs: settings.heartbeatTimeoutUs, maxPerModel: LEDGER_MAX_PER_MODEL },
      queueReportMaxAgeUs: settings.heartbeatTimeoutUs,
      stepCoefficients: settings.stepCoefficients ?? {},
    });
  }

  /** Starts the sweep that forgets instances gone silent; says which busy thresholds are in effect. */
  start(nowUs: Micros): void {
    this.sweep.start(nowUs);
    this.announceBusyThresholds();
  }

  stop(): void {
    this.sweep.stop();
  }

  /** Whether KV events are worth delivering here (a prefix index is kept). */
  get wantsKvEvents(): boolean {
    return this.cluster.keepsPrefixIndex;
  }

  submit(request: R, nowUs: Micros, carried: C): void {
    const view = this.cluster.view(nowUs);
    const decision = this.store.chain.decide(request, { ...view, admission: this.inputs.signals(view, nowUs) }, nowUs, this.replicas.count);
    this.effects.decided(request, carried, decision.decidedBy, decision);
    if (decision.admit) this.inputs.admitted(request.model, nowUs);
    if (decision.admit) this.effects.handOn(request, carried);
    else this.effects.reject(request, carried, decision.reason, decision.message, decision.retryAfterMs);
  }

  /** Flow control did not take the request (no responder, no ack): it ends here, not at the deadline. */
  /**
   * Flow control did not take the admitted request. No responder or no ack in time: given back to
   * the gateway to re-submit straight to flow control (it was admitted once; admitting it again
   * would charge its tokens twice). Anything else ends it here.
   */
  handoffRefused(request: R, carried: C, message: string, why: HandoffFailure = 'nack'): void {
    if (worthHandingBack(why)) this.effects.handBack(request, carried, { resumeAt: 'flow', reason: 'next_unavailable', message });
    else this.effects.reject(request, carried, 'flow_unavailable', message);
  }

  onLifecycle(event: LifecycleEvent): void {
    this.cluster.onLifecycle(event);
  }

  /** An admission process (this one or a replica) said it is up, alive or going down. */
  onPresence(event: Pick<PresenceEvent, 'processId' | 'type'>, nowUs: Micros): void {
    this.replicas.onPresence(event, nowUs);
  }

  /** The admission processes sharing the arrivals, as this one knows them (at least 1). */
  replicaCount(): number {
    return this.replicas.count;
  }

  onSnapshot(snapshot: LoadSnapshot): void {
    this.cluster.onSnapshot(snapshot);
  }

  onKv(event: KvEvent): void {
    this.cluster.onKv(event);
  }

  /** A flow controller's queue report: what waits there, by model and band. */
  onFlowQueue(report: FlowQueueReport): void {
    this.inputs.onQueueReport(report);
  }

  /** Requests admitted here that no report showed yet, every model (bounded; a metric and the tests read it). */
  get ledgerSize(): number {
    return this.inputs.ledgerSize;
  }

  /** The stage's bus connection is down: instances cannot be judged by their silence until it is back. */
  suspendExpiry(): void {
    this.expirySuspended = true;
  }

  /** The connection is back: every instance counts as heard now. */
  resumeExpiry(nowUs: Micros): void {
    this.expirySuspended = false;
    this.cluster.touchAll(nowUs);
    this.replicas.touchAll(nowUs);
  }

  wake(kind: AdmissionWakeUp, atUs: Micros, nowUs: Micros = atUs): void {
    if (kind !== 'sweep' || !this.sweep.due(atUs)) return;
    // Said again every sweep, so a router or admission replica that started since learns them.
    this.announceBusyThresholds();
    if (this.expirySuspended) return;
    this.replicas.expire(nowUs);
    this.inputs.expire(nowUs);
    const lost = this.cluster.expire(nowUs);
    if (lost.length > 0) this.effects.instancesLost(lost);
  }

  policyState(): AdmissionPolicyState {
    return this.store.state();
  }

  /** Switches the chain or merges parameters (throws ControlRefusal naming what is wrong). */
  setPolicy(change: SetAdmissionPolicy, nowUs: Micros): AdmissionPolicyState {
    const before = this.store.busyAnnouncement().changedAtUs;
    const state = this.store.set(change, nowUs);
    if (this.store.busyAnnouncement().changedAtUs !== before) this.announceBusyThresholds();
    return state;
  }

  busyThresholds(): BusyThresholdList {
    return this.store.busyThresholds();
  }

  /** Dynamo's `POST /busy_threshold` (throws ControlRefusal naming what is wrong); announced at once. */
  setBusyThreshold(update: BusyThresholdUpdate, nowUs: Micros): BusyThresholdEntry {
    const entry = this.store.setBusyThreshold(update, nowUs);
    this.announceBusyThresholds();
    return entry;
  }

  /** A peer's busy thresholds: taken when newer than those held (a change this replica missed). Says whether they were. */
  onBusyThresholds(announcement: BusyThresholdsAnnouncement): boolean {
    return this.store.adoptBusyThresholds(announcement);
  }

  private announceBusyThresholds(): void {
    this.effects.announceBusyThresholds?.(this.store.busyAnnouncement());
  }

  /** Live instances admission knows of. */
  instanceCount(): number {
    return this.cluster.size();
  }
}
