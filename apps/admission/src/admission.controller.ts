import { Controller } from '@nestjs/common';
import { EventPattern, MessagePattern, Payload, RpcException } from '@nestjs/microservices';
import {
  subjectPatterns,
  subjects,
  type AdmissionPolicyState,
  type BusyThresholdEntry,
  type BusyThresholdList,
  type BusyThresholdUpdate,
  type CancelRequest,
  type InferenceRequest,
  type KvEvent,
  type LifecycleEvent,
  type LoadSnapshot,
  type PresenceEvent,
  type SetAdmissionPolicy,
} from '@sluice/contracts';
import { ControlRefusal } from '@sluice/stages';
import { AdmissionService } from './admission.service.js';

/** A refused control request answers `{ok: false, message}` with the reason (Nest would hide it). */
function refusable<T>(apply: () => T): T {
  try {
    return apply();
  } catch (error) {
    if (error instanceof ControlRefusal) throw new RpcException(error.message);
    throw error;
  }
}

@Controller()
export class AdmissionController {
  constructor(private readonly admission: AdmissionService) {}

  @MessagePattern(subjects.admissionSubmit())
  submit(@Payload() request: InferenceRequest): void {
    this.admission.admit(request);
  }

  @EventPattern<string>(subjects.requestCancel())
  cancel(@Payload() cancel: CancelRequest): void {
    this.admission.onCancel(cancel);
  }

  @EventPattern(subjectPatterns.allWorkerLifecycle)
  lifecycle(@Payload() event: LifecycleEvent): void {
    this.admission.onLifecycle(event);
  }

  @EventPattern(subjectPatterns.allWorkerLoad)
  load(@Payload() snapshot: LoadSnapshot): void {
    this.admission.onSnapshot(snapshot);
  }

  @EventPattern(subjectPatterns.allWorkerKv)
  kv(@Payload() event: KvEvent): void {
    this.admission.onKv(event);
  }

  @EventPattern(subjectPatterns.admissionPresence)
  presence(@Payload() event: PresenceEvent): void {
    this.admission.onPresence(event);
  }

  @MessagePattern(subjects.control('admission', 'get'))
  get(): AdmissionPolicyState {
    return this.admission.policyState();
  }

  @MessagePattern(subjects.control('admission', 'set'))
  set(@Payload() change: SetAdmissionPolicy): AdmissionPolicyState {
    return refusable(() => this.admission.setPolicy(change));
  }

  @MessagePattern(subjects.control('admission', 'get-busy-threshold'))
  getBusyThreshold(): BusyThresholdList {
    return this.admission.busyThresholds();
  }

  @MessagePattern(subjects.control('admission', 'set-busy-threshold'))
  setBusyThreshold(@Payload() update: BusyThresholdUpdate): BusyThresholdEntry {
    return refusable(() => this.admission.setBusyThreshold(update));
  }
}
