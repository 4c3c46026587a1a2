import { PROTOCOL_ROOT, subjectPatterns, subjects, type ServiceName } from './subjects.js';

/**
 * Who may speak on the bus: one identity per service kind, and `control` for the CLI (`sluice
 * admission set`, `worker faults`, `bus faults`, `chaos`). With authentication on (docs/security.md)
 * each process connects as its kind's identity, and the NATS server lets it publish and subscribe
 * to exactly the subjects below and nothing else.
 */
export const BUS_IDENTITIES = ['gateway', 'admission', 'flow-controller', 'router', 'worker', 'autoscaler', 'control'] as const;
export type BusIdentity = (typeof BUS_IDENTITIES)[number];

export interface SubjectPermissions {
  readonly publish: readonly string[];
  readonly subscribe: readonly string[];
  /**
   * May answer the requests it receives, on their reply subjects (NATS `allow_responses`): a
   * handoff's ack, a control verb's answer. Only to a request it received, once.
   */
  readonly answers: boolean;
}

/**
 * The prefix of an identity's own request/reply inboxes (`nc.request`, the handoffs' acks): its
 * replies arrive under it, and no other identity may subscribe there, so no process reads another
 * kind's acks or control answers.
 */
export function inboxPrefixOf(identity: BusIdentity): string {
  return `_INBOX.${identity}`;
}

const worker = {
  submit: `${PROTOCOL_ROOT}.worker.*.submit`,
  load: subjectPatterns.allWorkerLoad,
  kv: subjectPatterns.allWorkerKv,
  lifecycle: subjectPatterns.allWorkerLifecycle,
  done: subjectPatterns.allWorkerDone,
  /** Disaggregated prefill/decode: a decode instance's prompt to its prefill instance, and the answer. */
  prefill: `${PROTOCOL_ROOT}.worker.*.prefill`,
  prefilled: `${PROTOCOL_ROOT}.worker.*.prefilled`,
};
/** Any gateway's request inboxes: the stages that end, hand back or stream a request write there. */
const anyInbox = `${PROTOCOL_ROOT}.inbox.>`;
const presenceOf = (service: ServiceName) => `${PROTOCOL_ROOT}.service.${service}.*.presence`;
const controlOf = (service: ServiceName) => `${PROTOCOL_ROOT}.control.${service}.*`;
/** Every process answers the bus-fault verbs (`sluice bus faults`, chaos runs); only `control` asks. */
const busFaultControl = `${PROTOCOL_ROOT}.control.bus.*`;
const ownInbox = (identity: BusIdentity) => `${inboxPrefixOf(identity)}.>`;

/**
 * The subject map of docs/architecture.md as permissions: what each identity sends and hears.
 * Derived from the subject builders, so a subject added there and used by a service fails its
 * integration tests until it is granted here.
 */
export function permissionsOf(identity: BusIdentity): SubjectPermissions {
  switch (identity) {
    case 'gateway':
      return {
        // The pipeline's entry, and the gateway's re-submissions at any stage; its cancels; the two
        // busy-threshold verbs behind GET/POST /busy_threshold.
        publish: [
          subjects.admissionSubmit(),
          subjects.flowSubmit(),
          subjects.routerSubmit(),
          subjects.requestCancel(),
          subjects.control('admission', 'get-busy-threshold'),
          subjects.control('admission', 'set-busy-threshold'),
          presenceOf('gateway'),
        ],
        subscribe: [anyInbox, subjectPatterns.allServicePresence, worker.lifecycle, busFaultControl, ownInbox(identity)],
        answers: true,
      };
    case 'admission':
      return {
        publish: [subjects.flowSubmit(), anyInbox, presenceOf('admission'), subjects.workerDiscover(), subjects.busyThresholds()],
        subscribe: [subjects.admissionSubmit(), subjects.busyThresholds(), subjects.requestCancel(), worker.lifecycle, worker.load, worker.kv, subjectPatterns.allFlowQueues, presenceOf('admission'), controlOf('admission'), busFaultControl, ownInbox(identity)],
        answers: true,
      };
    case 'flow-controller':
      return {
        publish: [subjects.routerSubmit(), anyInbox, presenceOf('flow-controller'), subjectPatterns.allFlowQueues, subjects.workerDiscover()],
        subscribe: [subjects.flowSubmit(), subjects.requestCancel(), worker.lifecycle, worker.load, worker.done, controlOf('flow-controller'), busFaultControl, ownInbox(identity)],
        answers: true,
      };
    case 'router':
      return {
        publish: [worker.submit, anyInbox, presenceOf('router'), subjects.workerDiscover()],
        subscribe: [subjects.routerSubmit(), subjects.busyThresholds(), subjects.requestCancel(), worker.lifecycle, worker.load, worker.done, worker.kv, controlOf('router'), busFaultControl, ownInbox(identity)],
        answers: true,
      };
    case 'worker':
      return {
        publish: [worker.load, worker.kv, worker.lifecycle, worker.done, worker.prefill, worker.prefilled, anyInbox, presenceOf('worker')],
        subscribe: [worker.submit, worker.prefill, worker.prefilled, subjects.requestCancel(), subjects.workerDiscover(), controlOf('worker'), busFaultControl, ownInbox(identity)],
        answers: true,
      };
    case 'autoscaler':
      return {
        // It asks one verb of the workers (how many instances each runs), and who is there at its start.
        publish: [subjects.control('worker', 'set-instances'), subjects.workerDiscover()],
        // It reads demand (flow control's queues, the instances' load) and follows the workers' instances and processes.
        subscribe: [worker.lifecycle, worker.load, subjectPatterns.allFlowQueues, subjectPatterns.workerPresence, controlOf('autoscaler'), busFaultControl, ownInbox(identity)],
        answers: true,
      };
    case 'control':
      // Asks; answers nothing and hears nothing but its own answers.
      return { publish: [`${PROTOCOL_ROOT}.control.>`], subscribe: [ownInbox(identity)], answers: false };
    default: {
      const unknown: never = identity;
      throw new Error(`no permissions for bus identity ${String(unknown)}`);
    }
  }
}

/** The identity a service process connects as. */
export function identityOfService(service: ServiceName): BusIdentity {
  return service;
}
