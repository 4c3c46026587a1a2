import type { Logger } from '@nestjs/common';
import { RpcException } from '@nestjs/microservices';
import { epochMicros } from '@sluice/bus';
import type {
  AdmissionPolicyState,
  BusyThresholdEntry,
  BusyThresholdList,
  BusyThresholdUpdate,
  InferenceRequest,
  SetAdmissionPolicy,
} from '@sluice/contracts';
import { ControlRefusal, type AdmissionStage } from '@sluice/stages';
import type { AdmissionCarried } from './admission-on-bus.js';
import type { AdmissionMetrics } from './admission.metrics.js';

/** A refused control request answers `{ok: false, message}` with the reason (any other error's is hidden). */
function refusable<T>(apply: () => T): T {
  try {
    return apply();
  } catch (error) {
    if (error instanceof ControlRefusal) throw new RpcException(error.message);
    throw error;
  }
}

/**
 * Admission's control verbs (`sluice admission get|set`, the gateway's `/busy_threshold`): the
 * admission chain and its parameters, and Dynamo's busy thresholds. Every replica answers, so a
 * change reaches each; it is logged and shown on the policy's metrics, and a change of the busy
 * thresholds is announced to the routers by the core.
 */
export function admissionControls(stage: AdmissionStage<InferenceRequest, AdmissionCarried>, metrics: AdmissionMetrics, logger: Logger) {
  return {
    get: (): AdmissionPolicyState => stage.policyState(),
    set: (change: SetAdmissionPolicy): AdmissionPolicyState =>
      refusable(() => {
        const state = stage.setPolicy(change, epochMicros());
        logger.log(`admission policy is now ${state.policy} ${JSON.stringify(state.params)}`);
        metrics.showPolicy(state, true);
        return state;
      }),
    'get-busy-threshold': (): BusyThresholdList => stage.busyThresholds(),
    'set-busy-threshold': (update: BusyThresholdUpdate): BusyThresholdEntry =>
      refusable(() => {
        const entry = stage.setBusyThreshold(update, epochMicros());
        logger.log(`busy thresholds of ${entry.model}: ${JSON.stringify(entry)}`);
        metrics.showPolicy(stage.policyState(), true);
        return entry;
      }),
  };
}
